import { availableParallelism } from 'node:os';
import { performance } from 'node:perf_hooks';
import { startTestRedis } from '../../test/support/redis-server.js';
import {
  EVERY_CORE_CONCURRENCY as CONCURRENCY,
  EVERY_CORE_LATENCY_MS as LATENCY_MS,
} from '../every-core/every-core-workload.js';
import { type RolloutRates, RolloutRatesProcess } from '../every-core/rollout-rates.js';
import { LoadClient } from '../load/load-client-api.js';
import { type BenchContext, type BenchResult, formatNumber, formatRatio } from '../support/bench-result.js';
import { type CoresUsed, measureCoresUsed } from '../support/machine-cpu.js';
import { alternate, median, pairedRatio } from '../support/measure.js';
import { type ServeProcess, startServeProcess } from '../support/start-serve-process.js';

const ROLLOUT_TARGET_WORKERS = 1.6;
const ROLLOUT_TARGET_RAW = 1.0;
const SERVE_TARGET = 1.5;
/** The scale workload of benchmark 3: runs of 5 turns, a 50 ms model call each. */
const SCALE_MODEL = 'openai:solve-in-5-after-50ms';

/**
 * Benchmark 13 (issue 27, "every core"): what `--workers 2` gives on this machine.
 * - Rollouts: `generateRollouts` at 256 episodes in flight, in a process of its own, in that process's
 *   thread (`--workers 1`) and in two worker threads (`--workers 2`), beside the single-threaded
 *   hand-written loop on `node:http` keep-alive playing the same one-turn episodes against the same fakes.
 * - Serve: the scale workload (runs of 5 turns) at 256 at once through one port, served by one
 *   `runbridge serve` process on Redis and by `runbridge serve --workers 2` on the same Redis.
 */
export async function benchEveryCore(ctx: BenchContext): Promise<BenchResult> {
  const rollouts = await rolloutRows(ctx);
  const serve = await serveRows(ctx);
  return {
    title: '13. Every core',
    method:
      `Rollouts: ${rollouts.episodes} one-turn episodes (one model call answered after ${LATENCY_MS} ms, one tool call) at ` +
      `${CONCURRENCY} in flight, in a process of their own (so the thread of \`--workers 1\` does not carry the heap of the ` +
      'benchmarks before this one), through `generateRollouts` (records and manifest written) with `workers` unset and with two ' +
      "worker threads, and through the hand-written loop on `node:http` keep-alive in one thread (the raw loop). A rollout's rate " +
      'counts over the second half of its records, in steady state: the worker threads are new for each batch and V8 ' +
      "optimises the bridge's code in each of them over its first thousand or so episodes, while the process's own thread " +
      '(`--workers 1`) is warm from the rounds before. The whole batch, first record to last, is shown beside it, and the time to the first ' +
      "record (the threads' start, which here also loads tsx for the benchmark's worker set-up) apart; the loop's rate is its " +
      'wall time. Serve: the scale workload — runs of 5 turns, a 50 ms model call each — ' +
      `${serve.runs} runs at ${CONCURRENCY} at once, driven by the load client through one port, against one \`runbridge serve\` ` +
      'on Redis and against `runbridge serve --workers 2` on the same Redis. Rounds alternate; ratios are medians of paired rounds.',
    tables: [rollouts.table, serve.table],
    verdicts: [...rollouts.verdicts, serve.verdict],
    notes: [
      `This machine has ${availableParallelism()} cores, shared with the fake model, the fake ORS server, the load client, Redis and ` +
        'whatever else runs on it: two workers get two cores only when nothing else wants them.',
    ],
  };
}

async function rolloutRows(ctx: BenchContext) {
  const episodes = CONCURRENCY * (ctx.quick ? 2 : 32);
  // A warm-up round warms the process's own thread (the worker threads of every batch are new anyway).
  const warmUpEpisodes = CONCURRENCY * (ctx.quick ? 2 : 8);
  const rounds = ctx.quick ? 1 : 3;
  const rates = await RolloutRatesProcess.start({ modelBaseUrl: ctx.modelBaseUrl, orsUrl: ctx.orsUrl });
  try {
    // The loop plays one warm thread: its wall-time rate stands for both.
    const raw = async (count = episodes) => {
      const rate = await rates.raw({ episodes: count });
      return { steady: rate, whole: rate, toFirstMs: 0 };
    };
    ctx.progress(`every-core: rollouts at ${CONCURRENCY}, warm-up`);
    await rates.rollouts({ workers: 1, episodes: warmUpEpisodes });
    await rates.rollouts({ workers: 2, episodes: warmUpEpisodes });
    await raw(warmUpEpisodes);
    ctx.progress(`every-core: rollouts at ${CONCURRENCY}, ${rounds} rounds of ${episodes} episodes each`);
    const samples = await alternate(rounds, {
      one: () => rates.rollouts({ workers: 1, episodes }),
      two: () => rates.rollouts({ workers: 2, episodes }),
      raw: () => raw(),
    });
    const steadyOf = (batches: readonly RolloutRates[]) => batches.map((batch) => batch.steady);
    const steady = { one: steadyOf(samples.one), two: steadyOf(samples.two), raw: steadyOf(samples.raw) };
    const ideal = CONCURRENCY / (LATENCY_MS / 1000);
    const vsOne = pairedRatio(steady.two, steady.one);
    const vsRaw = pairedRatio(steady.two, steady.raw);
    const row = (name: string, values: number[], whole: string, start: string) => [
      name,
      formatNumber(median(values), 1),
      formatRatio(median(values) / ideal),
      formatRatio(pairedRatio(values, steady.one)),
      formatRatio(pairedRatio(values, steady.raw)),
      whole,
      start,
    ];
    const wholeBatch = (batches: readonly RolloutRates[]) => formatNumber(median(batches.map((b) => b.whole)), 1);
    const toFirst = median(samples.two.map((batch) => batch.toFirstMs));
    return {
      episodes,
      table: {
        columns: [
          `${CONCURRENCY} episodes in flight`,
          'episodes/s',
          'of ideal',
          'vs --workers 1',
          'vs raw loop',
          'whole batch episodes/s',
          'to the first record',
        ],
        rows: [
          row('rollouts, --workers 1', steady.one, wholeBatch(samples.one), '—'),
          row(
            'rollouts, --workers 2',
            steady.two,
            wholeBatch(samples.two),
            `${formatNumber(toFirst)} ms (threads starting)`,
          ),
          row('raw node:http loop, one thread', steady.raw, wholeBatch(samples.raw), '—'),
        ],
      },
      verdicts: [
        {
          target: `rollouts --workers 2 ≥ ${ROLLOUT_TARGET_WORKERS}× --workers 1 at ${CONCURRENCY}`,
          measured: formatRatio(vsOne),
          met: vsOne >= ROLLOUT_TARGET_WORKERS,
        },
        {
          target: `rollouts --workers 2 ≥ ${ROLLOUT_TARGET_RAW}× the single-threaded raw node:http loop at ${CONCURRENCY}`,
          measured: formatRatio(vsRaw),
          met: vsRaw >= ROLLOUT_TARGET_RAW,
        },
      ],
    };
  } finally {
    await rates.stop();
  }
}

async function serveRows(ctx: BenchContext) {
  const runs = ctx.quick ? CONCURRENCY : CONCURRENCY * 4;
  const rounds = ctx.quick ? 1 : 3;
  const load = new LoadClient(ctx.load);
  const redis = await startTestRedis({ fsync: 'everysec' });
  const started: ServeProcess[] = [];
  try {
    const env = { ORS_URL: ctx.orsUrl, OPENAI_BASE_URL: ctx.modelBaseUrl, RUNBRIDGE_REDIS_URL: redis.url };
    const start = async (extra: Record<string, string>) => {
      const serve = await startServeProcess({ ...env, ...extra });
      started.push(serve);
      return serve;
    };
    // Each on its own keys, so neither claims the other's queued runs.
    const one = await start({ RUNBRIDGE_REDIS_PREFIX: redis.prefix() });
    const two = await start({ RUNBRIDGE_REDIS_PREFIX: redis.prefix(), RUNBRIDGE_WORKERS: '2' });
    const drive = async (serve: ServeProcess) => {
      const t0 = performance.now();
      const { value: result, cores } = await measureCoresUsed([ctx.model, ctx.ors, ctx.load], () =>
        load.driveRuns({ baseUrl: serve.url, body: { model: SCALE_MODEL }, runs, concurrency: CONCURRENCY }),
      );
      if (result.firstError !== null) throw new Error(`serve turns/s: ${result.firstError}`);
      return { rate: result.turns / ((performance.now() - t0) / 1000), cores };
    };
    ctx.progress(`every-core: serve at ${CONCURRENCY}, warm-up`);
    await drive(one);
    await drive(two);
    ctx.progress(`every-core: serve at ${CONCURRENCY}, ${rounds} rounds of ${runs} runs each`);
    const samples = await alternate(rounds, { one: () => drive(one), two: () => drive(two) });
    const ideal = CONCURRENCY / (LATENCY_MS / 1000);
    const rates = { one: samples.one.map((round) => round.rate), two: samples.two.map((round) => round.rate) };
    const ratio = pairedRatio(rates.two, rates.one);
    const coresOf = (rounds: ReadonlyArray<{ cores: CoresUsed }>, key: keyof CoresUsed) =>
      formatNumber(median(rounds.map((round) => round.cores[key])), 2);
    return {
      runs,
      table: {
        columns: [
          `${CONCURRENCY} runs at once, one port`,
          'turns/s',
          'of ideal',
          'vs 1 process',
          'machine busy (cores)',
          'fakes and load client (cores)',
        ],
        rows: [
          [
            'runbridge serve, 1 process on Redis',
            formatNumber(median(rates.one)),
            formatRatio(median(rates.one) / ideal),
            formatRatio(1),
            coresOf(samples.one, 'machine'),
            coresOf(samples.one, 'helpers'),
          ],
          [
            'runbridge serve --workers 2 on Redis',
            formatNumber(median(rates.two)),
            formatRatio(median(rates.two) / ideal),
            formatRatio(ratio),
            coresOf(samples.two, 'machine'),
            coresOf(samples.two, 'helpers'),
          ],
        ],
      },
      verdict: {
        target: `serve --workers 2 on Redis ≥ ${SERVE_TARGET}× one process's turns/s at ${CONCURRENCY} through one port`,
        measured: formatRatio(ratio),
        met: ratio >= SERVE_TARGET,
      },
    };
  } finally {
    await Promise.all(started.map((serve) => serve.stop()));
    await redis.stop();
  }
}
