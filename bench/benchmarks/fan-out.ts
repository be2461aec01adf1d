import { RunCreatedSchema } from '../../src/protocol/run-snapshot.js';
import { SSE_RETRY_LINE } from '../../src/sse/sse-headers.js';
import { sseFrames } from '../../test/support/fake-vendor-server.js';
import { type BareSseServer, startBareSseServer } from '../baselines/bare-sse-server.js';
import { BURST_PROVIDER, type BurstModel, createBurstModel } from '../fakes/burst-model.js';
import { LoadClient } from '../load/load-client-api.js';
import { type BenchContext, type BenchResult, formatNumber, formatRatio } from '../support/bench-result.js';
import { alternate, median, pairedRatio } from '../support/measure.js';
import { startBenchBridge } from '../support/start-bench-bridge.js';

/** Subscriber counts of the issue. */
const LEVELS = [1, 10, 100];
/** Text deltas the model yields between macrotask pauses. */
const BURST = 10;
/** Issue 17's floors, as a ratio to bare per subscriber count: at 1, live pays for making each event alone. */
const TARGETS = {
  live: new Map([
    [1, 0.5],
    [10, 0.8],
    [100, 0.8],
  ]),
  replay: new Map([
    [1, 0.8],
    [10, 0.8],
    [100, 0.8],
  ]),
};

interface Trial {
  /** Events delivered per second, summed over subscribers. */
  rate: number;
  /** The serving process's CPU microseconds per delivered event. */
  cpuUsPerEvent: number;
}

/**
 * Benchmark 1: events per second delivered over SSE to 1, 10 and 100 subscribers of one run, vs a
 * bare `node:http` server writing the same bytes from a prepared array, in two ways:
 *
 * - live: the subscribers are attached before the model starts; it yields its deltas in bursts and
 *   the bridge builds, logs and delivers each event as it comes. The bare server writes the same
 *   bursts. The clock runs from the first delta to the end of the last stream.
 * - replay: the run has finished; N subscribers connect at once and read its whole log. The bare
 *   server replays the same bytes in the same batches. The clock runs from the first connection to
 *   the end of the last stream.
 */
export async function benchFanOut(ctx: BenchContext): Promise<BenchResult> {
  const deltaCount = ctx.quick ? 500 : 5000;
  const rounds = ctx.quick ? 1 : 7;
  const warmUps = ctx.quick ? 1 : 10;
  // The run's events: run.started, prompt.available, one message.delta per delta, turn.completed, run.completed.
  const eventsPerRun = deltaCount + 4;
  const load = new LoadClient(ctx.load);
  const burstModel = createBurstModel(makeDeltas(deltaCount), BURST);
  const bridge = await startBenchBridge({
    orsUrl: ctx.orsUrl,
    modelBaseUrl: ctx.modelBaseUrl,
    extraProviders: [burstModel.provider],
  });
  const bare = await startBareSseServer();
  try {
    const timed = async (start: () => Promise<number>, keepBody = false) => {
      const cpu0 = process.cpuUsage();
      const t0 = process.hrtime.bigint();
      const job = await start();
      const finish = await load.finishStreams(job, keepBody);
      const cpu = process.cpuUsage(cpu0);
      if (finish.complete !== finish.streams || finish.events !== finish.streams * eventsPerRun) {
        throw new Error(
          `Fan-out: ${finish.complete}/${finish.streams} streams complete, ${finish.events} events; expected ${eventsPerRun} each.`,
        );
      }
      const seconds = Number(BigInt(finish.endedAt) - t0) / 1e9;
      const trial: Trial = { rate: finish.events / seconds, cpuUsPerEvent: (cpu.user + cpu.system) / finish.events };
      return { trial, body: finish.body };
    };

    const liveBridge = async (subscribers: number, keepBody = false) => {
      const eventsUrl = await startBurstRun(bridge.url, burstModel);
      const job = await load.openStreams(eventsUrl, subscribers);
      await burstModel.waiting();
      return timed(async () => {
        burstModel.release();
        return job;
      }, keepBody);
    };

    // Warm-up, and the bridge's own bytes for the baseline to write.
    const first = await liveBridge(1, true);
    // The first frame carries `retry:` as the bridge writes it, so the baseline writes the same bytes.
    const frames = sseFrames(first.body ?? '');
    if (!frames[0]?.startsWith(SSE_RETRY_LINE) || frames.length !== eventsPerRun) {
      throw new Error(
        `Fan-out: the captured stream has ${frames.length} frames; expected ${eventsPerRun}, retry first.`,
      );
    }
    // The captured run is finished; its log is what replay subscribers read.
    const replayUrl = await capturedRunUrl(bridge.url);

    const liveBare = async (subscribers: number) => {
      bare.replay = undefined;
      const job = await load.openStreams(bare.url, subscribers);
      let broadcast = Promise.resolve();
      const result = await timed(async () => {
        broadcast = bare.broadcast(frames, BURST);
        return job;
      });
      await broadcast;
      return result;
    };
    const replayBridge = (subscribers: number) => timed(() => load.openStreams(replayUrl, subscribers));
    const replayBare = (subscribers: number) =>
      timedReplay(bare, frames, () => timed(() => load.openStreams(bare.url, subscribers)));

    const variants = (subscribers: number) => ({
      liveBridge: async () => (await liveBridge(subscribers)).trial,
      liveBare: async () => (await liveBare(subscribers)).trial,
      replayBridge: async () => (await replayBridge(subscribers)).trial,
      replayBare: async () => (await replayBare(subscribers)).trial,
    });
    ctx.progress(`fan-out: warming up (${warmUps} round(s) at 10 subscribers)`);
    await alternate(warmUps, variants(10));

    const rows: string[][] = [];
    const ratios = { live: [] as number[], replay: [] as number[] };
    for (const subscribers of LEVELS) {
      ctx.progress(`fan-out: ${subscribers} subscriber(s), ${rounds} round(s)`);
      const samples = await alternate(rounds, variants(subscribers));
      for (const mode of ['live', 'replay'] as const) {
        const ours = mode === 'live' ? samples.liveBridge : samples.replayBridge;
        const theirs = mode === 'live' ? samples.liveBare : samples.replayBare;
        const ratio = pairedRatio(
          ours.map((trial) => trial.rate),
          theirs.map((trial) => trial.rate),
        );
        ratios[mode].push(ratio);
        rows.push([
          mode,
          String(subscribers),
          formatNumber(median(ours.map((trial) => trial.rate))),
          formatNumber(median(theirs.map((trial) => trial.rate))),
          formatRatio(ratio),
          formatNumber(median(ours.map((trial) => trial.cpuUsPerEvent)), 2),
          formatNumber(median(theirs.map((trial) => trial.cpuUsPerEvent)), 2),
        ]);
      }
    }
    return {
      title: '1. Event fan-out',
      method:
        `One run of ${formatNumber(eventsPerRun)} events (${formatNumber(deltaCount)} text deltas) delivered to N subscribers, vs a bare ` +
        '`node:http` server writing the same bytes from a prepared array. *Live*: subscribers attached before the model starts, ' +
        `deltas yielded in bursts of ${BURST} with a macrotask pause between bursts, the bare server writing the same bursts. ` +
        '*Replay*: the run has finished and N subscribers connect at once to read its whole log, the bare server writing the ' +
        `same bytes in the same 64 KB batches. Rates are medians, the ratio the median of per-round ratios, over ${rounds} ` +
        `alternating round(s) after ${warmUps} warm-up round(s).`,
      tables: [
        {
          columns: [
            'mode',
            'subscribers',
            'bridge events/s',
            'bare events/s',
            'ratio',
            'bridge CPU µs/event',
            'bare CPU µs/event',
          ],
          rows,
        },
      ],
      verdicts: (['live', 'replay'] as const).map((mode) => ({
        target: `${mode}: ${LEVELS.map((level) => `≥ ${TARGETS[mode].get(level)} of bare at ${level}`).join(', ')}`,
        measured: ratios[mode].map((ratio, i) => `${formatRatio(ratio)} at ${LEVELS[i]}`).join(', '),
        met: ratios[mode].every((ratio, i) => ratio >= TARGETS[mode].get(LEVELS[i]!)!),
      })),
      notes: [
        'Events/s are deliveries summed over subscribers. CPU is the serving process only; subscribers run in the load client process.',
        'Live, the bridge also *makes* every event — the run loop, the event object, its JSON, the log entry and the SSE frame — ' +
          'which the bare server gets for free from its array. That cost is paid once per event whatever the number of subscribers, ' +
          'so it weighs most at 1 subscriber.',
        'The model is in the bridge process on purpose (it only yields prepared deltas): the figure is the event log and ' +
          'subscriber path, not an adapter (benchmark 6 measures those).',
      ],
    };
  } finally {
    await bridge.shutdown();
    await bare.close();
  }

  /** Replays on the bare server for the length of one trial. */
  async function timedReplay<T>(server: BareSseServer, frames: readonly string[], trial: () => Promise<T>): Promise<T> {
    server.replay = frames;
    try {
      return await trial();
    } finally {
      server.replay = undefined;
    }
  }
}

/** Starts a run of the burst model (its gate armed) and answers its events URL. */
async function startBurstRun(baseUrl: string, burstModel: BurstModel): Promise<string> {
  burstModel.arm();
  const response = await fetch(`${baseUrl}/v1/runs`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ model: `${BURST_PROVIDER}:burst`, max_turns: 1 }),
  });
  if (response.status !== 202) throw new Error(`POST /v1/runs answered ${response.status}: ${await response.text()}`);
  return `${baseUrl}${RunCreatedSchema.parse(await response.json()).events_url}`;
}

/** The events URL of the newest run (the capture run, finished by now). */
async function capturedRunUrl(baseUrl: string): Promise<string> {
  const response = await fetch(`${baseUrl}/v1/runs?limit=1`);
  const { data } = (await response.json()) as { data: Array<{ run_id: string; status: string }> };
  const run = data[0];
  if (run?.status !== 'completed')
    throw new Error(`Fan-out: the capture run is ${run?.status ?? 'missing'}, not completed.`);
  return `${baseUrl}/v1/runs/${run.run_id}/events`;
}

/** `count` word-sized text deltas, like tokens of a streamed answer. */
function makeDeltas(count: number): string[] {
  const words = [
    'The',
    ' answer',
    ' is',
    ' built',
    ' from',
    ' several',
    ' small',
    ' steps',
    ',',
    ' each',
    ' checked',
    ' twice',
    '.',
  ];
  return Array.from({ length: count }, (_, i) => words[i % words.length]!);
}
