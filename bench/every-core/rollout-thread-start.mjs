// `node rollout-thread-start.mjs <rounds> <model base URL> <ORS URL>`: starts and closes one worker thread of
// `runbridge rollout` `rounds` times, as the command starts it — its own setup module, from dist/ as
// `npm run build` made it, in a plain `node` process (the benchmarks' own process would hand the thread
// its tsx and loader hooks) — and prints the milliseconds from `new Worker` to the thread set up, as JSON:
// `{ "ors_url": [...], "builtin_ors": [...] }`, a batch on ORS_URL and one on a built-in ORS server of the thread's own.
import { performance } from 'node:perf_hooks';

const [rounds, modelBaseUrl, orsUrl] = process.argv.slice(2);
const dist = new URL('../../dist/src/', import.meta.url);
const { RolloutWorkerPool } = await import(new URL('rollouts/workers/rollout-worker-pool.js', dist).href);
const setup = new URL('commands/set-up-rollout-worker.js', dist);
const model = 'openai:every-core';
const env = { OPENAI_BASE_URL: modelBaseUrl, OPENAI_API_KEY: 'bench', OPENAI_MODELS: 'every-core' };

async function startMs(ors) {
  const t0 = performance.now();
  const pool = await RolloutWorkerPool.start(
    { count: 1, setup, data: { env: { ...env, ORS_URL: ors }, model } },
    model,
  );
  const ms = performance.now() - t0;
  await pool.close();
  return ms;
}

const times = { ors_url: [], builtin_ors: [] };
for (let round = 0; round < Number(rounds); round++) {
  times.ors_url.push(await startMs(orsUrl));
  times.builtin_ors.push(await startMs(''));
}
process.stdout.write(JSON.stringify(times));
