import { availableParallelism } from 'node:os';
import { fileURLToPath } from 'node:url';
import { configDefaults, defineConfig, type TestProjectInlineConfiguration } from 'vitest/config';
import { LoadFirstSequencer } from './test/support/load-first-sequencer.js';
import { SlowestFilesReporter } from './test/support/slowest-files-reporter.js';

/**
 * The lanes of the suite: a project each, named for what its files start beside the test process, and
 * picked by the last part of a file's name before `.test.ts` (`serve-command.process.test.ts`) or by its
 * folder. A file that matches none is `unit`: in-process code and real HTTP on loopback, the everyday
 * loop (`npm run test:unit`). docs/development.md says which lane a new file goes in.
 */
const LANES = {
  /** Child processes (the `runbridge` command, the examples, tmux, build scripts) and worker threads that load the sources. */
  process: ['test/**/*.process.test.ts'],
  /** Headless Chromium (test/support/launch-chromium.ts). */
  chromium: ['test/**/*.chromium.test.ts'],
  /** `python3`: the Python example and the readers of rollout exports. */
  python: ['test/**/*.python.test.ts'],
  /** Thousands of runs through one bridge, and what they leave behind. */
  load: ['test/**/*.load.test.ts'],
  /** The packed tarball, installed into an empty project. */
  pack: ['test/package/pack.test.ts'],
  /** Several `runbridge serve` processes on one Redis. */
  'multi-instance': ['test/multi-instance/**/*.test.ts'],
};

const unit: TestProjectInlineConfiguration = {
  extends: true,
  test: {
    name: 'unit',
    include: ['test/**/*.test.ts'],
    exclude: [...configDefaults.exclude, ...Object.values(LANES).flat()],
    // Worker threads that keep their modules from one file to the next (poolOptions.threads below):
    // loading the bridge's modules afresh for each of these files cost more than their tests.
    pool: 'threads',
  },
};

/**
 * The lanes whose files share the unit lane's threads, and so the modules those threads keep: the
 * chromium files run a bridge in-process as unit files do, and loading it afresh for each cost 40 of
 * the lane's 65 s of CPU. The others keep a process per file: they send signals, measure the
 * process's memory and handles, or spend their time in child processes anyway.
 */
const SHARING_THREADS = new Set(['chromium']);

const lanes: TestProjectInlineConfiguration[] = [
  unit,
  ...Object.entries(LANES).map(([name, include]) => ({
    extends: true as const,
    test: { name, include, ...(SHARING_THREADS.has(name) ? { pool: 'threads' as const } : {}) },
  })),
];

/**
 * Files at once. Most tests wait (on loopback, on a child process, on Chromium) more than they
 * compute, so the unit lane's threads are as many as the cores, not vitest's default of one less
 * (1 on 2 cores), and the other lanes' processes one more: one of them spends its first minute or
 * more on the load lane's thousands of runs (test/support/load-first-sequencer.ts).
 */
const CORES = availableParallelism();

export default defineConfig({
  resolve: {
    // The chat page's sources (src/ui/) import the client by its package name, as an app would;
    // tests resolve it to the sources (as tsconfig's paths do for tsc and tsx), never to a stale dist/.
    alias: [
      { find: /^runbridge\/client$/, replacement: fileURLToPath(new URL('./src/client/index.ts', import.meta.url)) },
    ],
  },
  test: {
    // Tests run real HTTP servers on loopback; a generous timeout absorbs a busy 2-core CI machine.
    testTimeout: 30_000,
    hookTimeout: 30_000,
    // Leaked timers or sockets keep a worker alive; fail loudly rather than hang CI.
    teardownTimeout: 10_000,
    pool: 'forks',
    poolOptions: {
      // The threads (the unit and chromium lanes) keep modules from one file to the next: a file stops
      // what it starts and mocks nothing another file imports (docs/development.md). Every file of the
      // other lanes runs in a process of its own. The two pools run side by side.
      threads: { maxThreads: Math.max(2, CORES), isolate: false },
      forks: { maxForks: CORES + 1 },
    },
    reporters: ['default', new SlowestFilesReporter({ count: 10 })],
    sequence: { sequencer: LoadFirstSequencer },
    // Both stores are held to the same answers by test/store/ (one suite per interface, run against
    // each); what differs across instances is tested with real ones in test/multi-instance/.
    projects: lanes,
  },
});
