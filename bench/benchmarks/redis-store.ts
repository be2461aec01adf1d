import { performance } from 'node:perf_hooks';
import type { Runbridge } from '../../src/main.js';
import { RunCreatedSchema } from '../../src/protocol/run-snapshot.js';
import { startTestRedis, type TestRedis } from '../../test/support/redis-server.js';
import { BURST_PROVIDER, type BurstModel, burstRunEvents, createBurstModel } from '../fakes/burst-model.js';
import { LoadClient } from '../load/load-client-api.js';
import { type BenchContext, type BenchResult, formatNumber, formatRatio } from '../support/bench-result.js';
import { alternate, median, pairedRatio, percentile } from '../support/measure.js';
import { startBenchBridge } from '../support/start-bench-bridge.js';
import { type ServeProcess, startServeProcess } from '../support/start-serve-process.js';

const BURST = 10;
const SUBSCRIBERS = [10, 100];
/** The scale workload of benchmark 3: runs of 5 turns, a 50 ms model call each. */
const SCALE_MODEL = 'openai:solve-in-5-after-50ms';

/**
 * Benchmark 9: the Redis store against the memory store, all in one run on this machine.
 *
 * - Fan-out and replay: one run's events delivered to N subscribers of an instance that does not
 *   execute the run (so every event goes through Redis: written by the executing instance, tailed
 *   by the serving one), vs the same subscribers on a memory-store bridge that executes it.
 * - Time to first event: POST on one instance, subscribe on the other, vs both on a memory bridge.
 * - Turns per second of the scale workload through 1 and 2 `runbridge serve` processes on one Redis
 *   (and one memory-store process for reference).
 */
export async function benchRedisStore(ctx: BenchContext): Promise<BenchResult> {
  const deltaCount = ctx.quick ? 500 : 5000;
  const rounds = ctx.quick ? 1 : 3;
  const eventsPerRun = burstRunEvents(deltaCount);
  const load = new LoadClient(ctx.load);
  const redis = await startTestRedis({ fsync: 'everysec' });
  const cleanups: Array<() => Promise<unknown>> = [() => redis.stop()];
  try {
    const fanOut = await fanOutRows(ctx, load, redis, cleanups, { deltaCount, rounds, eventsPerRun });
    const firstEvent = await firstEventRows(ctx, load, redis, cleanups, ctx.quick ? 20 : 100, rounds);
    const scale = await scaleRows(ctx, load, redis, cleanups);
    return {
      title: '9. The Redis store',
      method:
        'Redis 7 (the Debian package, append-only file fsynced every second) on this machine. *Fan-out*: a run of ' +
        `${formatNumber(eventsPerRun)} events (${formatNumber(deltaCount)} text deltas in bursts of ${BURST}) read by N subscribers of ` +
        'instance B while instance A executes it (A and B in this process, on one Redis), vs N subscribers of a memory-store ' +
        'bridge that executes it. *Replay*: N subscribers read a finished run B has not read before. *First event*: POST on A, ' +
        'subscribe on B, vs both on the memory bridge. *Turns/s*: the scale workload (runs of 5 turns, 50 ms per model call, ' +
        `128 at once) through \`runbridge serve\` processes. Medians of ${rounds} alternating round(s).`,
      tables: [fanOut.table, firstEvent.table, scale.table],
      verdicts: [
        { target: 'none set; Redis fan-out vs memory', measured: fanOut.summary, met: null },
        { target: 'none set; first event through Redis vs memory', measured: firstEvent.summary, met: null },
        { target: 'none set; 2 instances vs 1 on one Redis', measured: scale.summary, met: null },
      ],
      notes: [
        'Through Redis an event costs one Stream entry written by the executing instance (one fenced script call per turn of its ' +
          'event loop, whatever the number of events in it) and one read by each instance that serves the run (one blocking read ' +
          'for all the Streams it follows); subscribers of one instance share its copy of the log.',
        'Live fan-out through Redis can beat memory: the serving instance receives the log in batches (a blocking read returns ' +
          'every entry written since the last one, up to 1,000), so its subscribers are woken and written to less often, and ' +
          'the executing instance does not write to subscribers at all. The price is latency: each event waits for the next ' +
          'append and the next read, which the first-event rows show.',
        'The processes of the turns/s rows share this machine with the fake model, the fake ORS server, Redis and the load ' +
          'client: on 2 cores, a second instance mostly adds a second event loop, not a second core, so the figure says that ' +
          'instances on one Redis do not slow each other down, not how they scale on machines of their own.',
      ],
    };
  } finally {
    for (const cleanup of cleanups.reverse()) await cleanup().catch(() => undefined);
  }
}

interface Table {
  table: { columns: string[]; rows: string[][] };
  summary: string;
}

async function fanOutRows(
  ctx: BenchContext,
  load: LoadClient,
  redis: TestRedis,
  cleanups: Array<() => Promise<unknown>>,
  sizes: { deltaCount: number; rounds: number; eventsPerRun: number },
): Promise<Table> {
  const deltas = Array.from({ length: sizes.deltaCount }, (_, i) => (i % 7 === 0 ? ' step' : ' word'));
  const memoryModel = createBurstModel(deltas, BURST);
  const redisModel = createBurstModel(deltas, BURST);
  const common = { orsUrl: ctx.orsUrl, modelBaseUrl: ctx.modelBaseUrl };
  const memory = await startBenchBridge({ ...common, extraProviders: [memoryModel.provider] });
  cleanups.push(() => memory.shutdown());
  const store = { RUNBRIDGE_REDIS_URL: redis.url, RUNBRIDGE_REDIS_PREFIX: redis.prefix() };
  const executing = await startBenchBridge({ ...common, extraProviders: [redisModel.provider], env: store });
  cleanups.push(() => executing.shutdown());
  const serving = await startBenchBridge({ ...common, env: store });
  cleanups.push(() => serving.shutdown());

  /** Events/s from `t0` to the end of the last stream of `job`. */
  const rate = async (job: number, t0: bigint): Promise<number> => {
    const finish = await load.finishStreams(job);
    if (finish.complete !== finish.streams || finish.events !== finish.streams * sizes.eventsPerRun) {
      throw new Error(`Redis fan-out: ${finish.complete}/${finish.streams} streams complete, ${finish.events} events.`);
    }
    return finish.events / (Number(BigInt(finish.endedAt) - t0) / 1e9);
  };
  // Live: the subscribers are attached before the model starts; the clock runs from its first delta.
  const live = async (model: BurstModel, exec: Runbridge, serve: Runbridge, subscribers: number) => {
    const path = await startBurstRun(exec.url, model);
    const job = await load.openStreams(`${serve.url}${path}`, subscribers);
    await model.waiting();
    const t0 = process.hrtime.bigint();
    model.release();
    return rate(job, t0);
  };
  // Replay: the run has finished; the clock runs from the first connection.
  const replay = async (model: BurstModel, exec: Runbridge, serve: Runbridge, subscribers: number) => {
    const path = await startBurstRun(exec.url, model);
    await model.waiting();
    model.release();
    await untilFinished(exec.url, path);
    const t0 = process.hrtime.bigint();
    return rate(await load.openStreams(`${serve.url}${path}`, subscribers), t0);
  };

  const rows: string[][] = [];
  const ratios: string[] = [];
  ctx.progress('redis: fan-out warm-up');
  await live(memoryModel, memory, memory, 10);
  await live(redisModel, executing, serving, 10);
  for (const subscribers of SUBSCRIBERS) {
    ctx.progress(`redis: fan-out at ${subscribers} subscribers, ${sizes.rounds} round(s)`);
    const samples = await alternate(sizes.rounds, {
      liveMemory: () => live(memoryModel, memory, memory, subscribers),
      liveRedis: () => live(redisModel, executing, serving, subscribers),
      replayMemory: () => replay(memoryModel, memory, memory, subscribers),
      replayRedis: () => replay(redisModel, executing, serving, subscribers),
    });
    for (const mode of ['live', 'replay'] as const) {
      const viaRedis = mode === 'live' ? samples.liveRedis : samples.replayRedis;
      const inMemory = mode === 'live' ? samples.liveMemory : samples.replayMemory;
      const ratio = pairedRatio(viaRedis, inMemory);
      ratios.push(`${mode} ${subscribers}: ${formatRatio(ratio)}`);
      rows.push([
        mode,
        String(subscribers),
        formatNumber(median(viaRedis)),
        formatNumber(median(inMemory)),
        formatRatio(ratio),
      ]);
    }
  }
  return {
    table: { columns: ['mode', 'subscribers', 'through Redis events/s', 'memory events/s', 'ratio'], rows },
    summary: ratios.join(', '),
  };
}

async function firstEventRows(
  ctx: BenchContext,
  load: LoadClient,
  redis: TestRedis,
  cleanups: Array<() => Promise<unknown>>,
  perRound: number,
  rounds: number,
): Promise<Table> {
  const common = { orsUrl: ctx.orsUrl, modelBaseUrl: ctx.modelBaseUrl };
  const memory = await startBenchBridge(common);
  cleanups.push(() => memory.shutdown());
  const store = { RUNBRIDGE_REDIS_URL: redis.url, RUNBRIDGE_REDIS_PREFIX: redis.prefix() };
  const a = await startBenchBridge({ ...common, env: store });
  cleanups.push(() => a.shutdown());
  const b = await startBenchBridge({ ...common, env: store });
  cleanups.push(() => b.shutdown());
  const body = { model: 'openai:solve-in-1' };
  const variants = {
    redis: () => load.timeToFirstEvent({ baseUrl: a.url, eventsBaseUrl: b.url, body, samples: perRound }),
    memory: () => load.timeToFirstEvent({ baseUrl: memory.url, body, samples: perRound }),
  };
  ctx.progress('redis: time to first event');
  await alternate(1, variants);
  const samples = await alternate(rounds, variants);
  const viaRedis = samples.redis.flat();
  const inMemory = samples.memory.flat();
  const rows = [50, 95, 99].map((p) => {
    const ours = percentile(viaRedis, p);
    const theirs = percentile(inMemory, p);
    return [`p${p}`, formatNumber(ours, 2), formatNumber(theirs, 2), formatRatio(ours / theirs)];
  });
  return {
    table: { columns: ['first event', 'POST on A, stream on B (ms)', 'memory (ms)', 'ratio'], rows },
    summary: `p50 ${rows[0]![1]} vs ${rows[0]![2]} ms`,
  };
}

async function scaleRows(
  ctx: BenchContext,
  load: LoadClient,
  redis: TestRedis,
  cleanups: Array<() => Promise<unknown>>,
): Promise<Table> {
  const runs = ctx.quick ? 64 : 512;
  const concurrency = ctx.quick ? 32 : 128;
  const env = { ORS_URL: ctx.orsUrl, OPENAI_BASE_URL: ctx.modelBaseUrl };
  const store = { RUNBRIDGE_REDIS_URL: redis.url, RUNBRIDGE_REDIS_PREFIX: redis.prefix() };
  const start = async (extra: Record<string, string>): Promise<ServeProcess> => {
    const serve = await startServeProcess({ ...env, ...extra });
    cleanups.push(() => serve.stop());
    return serve;
  };
  const memory = await start({});
  const x = await start(store);
  const y = await start(store);
  const drive = async (urls: string[]) => {
    const t0 = performance.now();
    const results = await Promise.all(
      urls.map((baseUrl) =>
        load.driveRuns({
          baseUrl,
          body: { model: SCALE_MODEL },
          runs: runs / urls.length,
          concurrency: concurrency / urls.length,
        }),
      ),
    );
    const failed = results.find((result) => result.firstError !== null);
    if (failed) throw new Error(`Redis turns/s: ${failed.firstError}`);
    return results.reduce((turns, result) => turns + result.turns, 0) / ((performance.now() - t0) / 1000);
  };
  ctx.progress('redis: turns/s warm-up');
  await drive([memory.url]);
  await drive([x.url, y.url]);
  ctx.progress('redis: turns/s through 1 and 2 instances');
  const samples = await alternate(ctx.quick ? 1 : 2, {
    memory: () => drive([memory.url]),
    one: () => drive([x.url]),
    two: () => drive([x.url, y.url]),
  });
  const ideal = concurrency / 0.05;
  const row = (name: string, values: number[]) => [
    name,
    formatNumber(median(values)),
    formatRatio(median(values) / ideal),
    formatRatio(pairedRatio(values, samples.one)),
  ];
  return {
    table: {
      columns: [`${concurrency} runs at once`, 'turns/s', 'of ideal', 'vs 1 instance on Redis'],
      rows: [
        row('1 instance, memory store', samples.memory),
        row('1 instance on Redis', samples.one),
        row('2 instances on one Redis', samples.two),
      ],
    },
    summary: `2 vs 1 instance ${formatRatio(pairedRatio(samples.two, samples.one))}`,
  };
}

/** Starts a run of the burst model (its gate armed) and answers its events path. */
async function startBurstRun(baseUrl: string, model: BurstModel): Promise<string> {
  model.arm();
  const response = await fetch(`${baseUrl}/v1/runs`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ model: `${BURST_PROVIDER}:burst`, max_turns: 1 }),
  });
  if (response.status !== 202) throw new Error(`POST /v1/runs answered ${response.status}: ${await response.text()}`);
  return RunCreatedSchema.parse(await response.json()).events_url;
}

/** Waits until the run of `eventsPath` has ended. */
async function untilFinished(baseUrl: string, eventsPath: string): Promise<void> {
  const snapshotUrl = `${baseUrl}${eventsPath.replace(/\/events$/, '')}`;
  for (;;) {
    const { status } = (await (await fetch(snapshotUrl)).json()) as { status: string };
    if (status === 'completed' || status === 'failed' || status === 'cancelled') return;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
