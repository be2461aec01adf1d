import { writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { rolloutCommand } from '../../src/commands/rollout-command.js';
import { setUpRolloutWorker } from '../../src/commands/set-up-rollout-worker.js';
import '../../src/rollouts/workers/rollout-worker-pool.js';

// `rollout-loaded-packages.ts <report file> <rollout args…>`, from the sources: plays `runbridge rollout
// <args>` in this thread, sets up a rollout worker thread's runtime here as the thread would (what its
// entry, `rollout-worker.ts`, loads besides it: `play-rollout-episode.ts`, which the command loads too),
// and writes the npm packages this process loaded, as JSON, to the report file. The packages the test asks
// about are CommonJS, even behind an ESM entry, so Node's module cache lists every one that loaded.

const [report, ...args] = process.argv.slice(2);
const code = await rolloutCommand(args);
const runtime = await setUpRolloutWorker({ env: process.env, model: 'offline' });
await runtime.close?.();
const packages = new Set<string>();
for (const file of Object.keys(createRequire(import.meta.url).cache)) {
  const match = /node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(file);
  if (match) packages.add(match[1]!);
}
writeFileSync(report!, JSON.stringify({ code, packages: [...packages].sort() }));
