import { mkdtemp, rm } from 'node:fs/promises';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { createOpenAiChatProvider } from '../../adapters/models/openai-chat/openai-chat-provider.js';
import { OrsClient } from '../../src/ors/client/ors-client.js';
import { generateRollouts } from '../../src/rollouts/generate-rollouts.js';
import { rolloutThreads } from '../../src/rollouts/workers/rollout-threads.js';
import type { RolloutWorkers } from '../../src/rollouts/workers/rollout-worker-setup.js';
import { playHandWrittenEpisodes } from '../baselines/hand-written-episode.js';
import { BENCH_ENV } from '../fakes/bench-environment.js';
import type { BenchWorkerData } from '../fakes/bench-rollout-worker.js';
import { serveBenchCalls } from '../support/bench-child.js';
import { EVERY_CORE_CONCURRENCY, EVERY_CORE_ROLLOUT_MODEL } from './every-core-workload.js';
import { type RawRate, RawRateParamsSchema, type RolloutRates, RolloutRatesParamsSchema } from './rollout-rates.js';

// A rollout-rates process (see `rollout-rates.ts`): `rollout-rates-process.ts <model base URL> <ORS URL>`.

const [modelBaseUrl, orsUrl] = process.argv.slice(2);
if (modelBaseUrl === undefined || orsUrl === undefined)
  throw new Error('usage: rollout-rates-process.ts <model base URL> <ORS URL>');

const ors = new OrsClient({ baseUrl: orsUrl });
const model = createOpenAiChatProvider({ apiKey: 'bench', baseUrl: modelBaseUrl }).create(EVERY_CORE_ROLLOUT_MODEL);
const data: BenchWorkerData = { modelBaseUrl, orsUrl, modelName: EVERY_CORE_ROLLOUT_MODEL };
const dir = await mkdtemp(join(tmpdir(), 'runbridge-bench-'));
let file = 0;

async function rollouts(params: unknown): Promise<RolloutRates> {
  const { workers, episodes, asNeeded } = RolloutRatesParamsSchema.parse(params);
  const times: number[] = [];
  // The steady half starts at this record: its CPU is read there, every thread of the process.
  const half = Math.floor(episodes / 2);
  let cpuAtHalf = process.cpuUsage();
  const options: RolloutWorkers | undefined =
    workers > 1
      ? {
          count: workers,
          setup: new URL('../fakes/bench-rollout-worker.ts', import.meta.url),
          data,
          // The command's default (`rolloutWorkersOf`) on a machine nothing else keeps busy: here the load
          // average counts the benchmark's own fakes and rounds, and would keep the default at one thread.
          ...(asNeeded ? { asNeeded, idleCores: availableParallelism() } : {}),
        }
      : undefined;
  const played = rolloutThreads(options, EVERY_CORE_CONCURRENCY, episodes);
  const t0 = performance.now();
  const result = await generateRollouts({
    ors,
    model,
    env: BENCH_ENV,
    split: 'train',
    // The bench split has 1 000 tasks: every task of the first 256, as many samples as it takes.
    tasks: `0:${EVERY_CORE_CONCURRENCY}`,
    samples: episodes / EVERY_CORE_CONCURRENCY,
    out: join(dir, `r${file++}.jsonl`),
    concurrency: EVERY_CORE_CONCURRENCY,
    retries: 0,
    ...(options ? { workers: options } : {}),
    onRecord: () => {
      if (times.push(performance.now()) === half + 1) cpuAtHalf = process.cpuUsage();
    },
  });
  const cpu = process.cpuUsage(cpuAtHalf);
  if (result.manifest.progress.completed !== episodes)
    throw new Error(`rollouts: ${episodes - result.manifest.progress.completed} episodes failed`);
  const rateFrom = (first: number) => (times.length - 1 - first) / ((times.at(-1)! - times[first]!) / 1000);
  return {
    steady: rateFrom(half),
    whole: rateFrom(0),
    toFirstMs: times[0]! - t0,
    batch: episodes / ((times.at(-1)! - t0) / 1000),
    threads: played.workers + (played.here ? 1 : 0),
    cpuUs: (cpu.user + cpu.system) / (times.length - 1 - half),
  };
}

async function raw(params: unknown): Promise<RawRate> {
  const { episodes } = RawRateParamsSchema.parse(params);
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  const played = await playHandWrittenEpisodes(
    { modelBaseUrl: modelBaseUrl!, orsUrl: orsUrl!, env: BENCH_ENV, model: EVERY_CORE_ROLLOUT_MODEL, maxTurns: 20 },
    episodes,
    EVERY_CORE_CONCURRENCY,
    'node-http',
  );
  const wallMs = performance.now() - t0;
  const cpu = process.cpuUsage(cpu0);
  const finished = played.filter((episode) => episode.finished).length;
  return { rate: finished / (wallMs / 1000), cpuUs: (cpu.user + cpu.system) / episodes };
}

serveBenchCalls({ rollouts, raw }, () => rm(dir, { recursive: true, force: true }));
