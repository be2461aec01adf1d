import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

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
    // One project: both stores are held to the same answers by test/store/ (one suite per interface, run
    // against each), and what differs across instances is tested with real ones in test/multi-instance/.
    projects: [{ extends: true, test: { name: 'memory', include: ['test/**/*.test.ts'] } }],
  },
});
