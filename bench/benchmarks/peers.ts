import { readFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { LoadClient } from '../load/load-client-api.js';
import {
  EPISODE_LOOPS,
  type EpisodeLoopName,
  EpisodeLoopProcess,
  type PlayEpisodesResult,
} from '../peers/episode-loop-api.js';
import {
  type BenchContext,
  type BenchResult,
  formatNumber,
  formatPercent,
  formatRatio,
} from '../support/bench-result.js';
import { driveApiTurns } from '../support/drive-api-turns.js';
import { alternate, measure, median, pairedRatio, warmUpRounds } from '../support/measure.js';
import { type BridgeProcess, startBridgeProcess } from '../support/start-bridge-process.js';

/** The CPU episode: two model turns, the first calling `step`, the second `submit` (the tool call that finishes). */
const CPU_TURNS = 2;
/** The throughput episode: the scale workload of benchmark 3, five turns of a 50 ms model call each. */
const RATE_TURNS = 5;
const LATENCY_MS = 50;
const CONCURRENCY = 256;
/** The bridge's server CPU per episode, at most this share of the lightest peer's in-process CPU. */
const CPU_TARGET = 0.7;
/** The bridge's turns/s at 256 concurrent, at least this many times the better peer's. */
const RATE_TARGET = 1.2;

const PEERS = ['ai-sdk', 'openai-agents'] as const satisfies readonly EpisodeLoopName[];
type Way = 'api' | EpisodeLoopName;
const WAYS: readonly Way[] = ['api', ...EPISODE_LOOPS];

const LABELS: Record<Way, string> = {
  api: 'runbridge via the HTTP API (its server process)',
  'ai-sdk': 'Vercel AI SDK: streamText with tools, @ai-sdk/openai-compatible',
  'openai-agents': 'OpenAI Agents SDK: run, streaming, Chat Completions, tracing off',
  'raw-loop': 'raw loop: hand-written, node:http keep-alive',
  'sdk-loop': 'SDK loop: the raw loop, model calls through the openai SDK',
};

/** The peers' packages, whose versions the report names. */
const PEER_PACKAGES = ['ai', '@ai-sdk/openai-compatible', '@openai/agents'];

interface Sample {
  /** CPU of the way's own process, µs per episode or per turn. */
  cpuUs: number;
  /** Wall time, µs per episode (CPU part) or turns per second (throughput part). */
  wall: number;
}

/**
 * Benchmark 14 (issue 27, "peers"): the same episodes — the bench environment over the fake ORS server,
 * the fake model's `solve-in-N` — played by the bridge through its HTTP API and by the Vercel AI SDK
 * and the OpenAI Agents SDK, each SDK in a process of its own giving the ORS tools to its own agent
 * loop, with the hand-written raw loop and SDK loop beside them for reference. Two figures: CPU per
 * episode, episodes one after another (the bridge's whole server process, the peers' whole process);
 * turns/s with 256 episodes in flight against a model answering after 50 ms.
 */
export async function benchPeers(ctx: BenchContext): Promise<BenchResult> {
  const loadAtStart = loadavg();
  const loops = await Promise.all(
    EPISODE_LOOPS.map((name) => EpisodeLoopProcess.start(name, { modelBaseUrl: ctx.modelBaseUrl, orsUrl: ctx.orsUrl })),
  );
  const bridge = await startBridgeProcess({ orsUrl: ctx.orsUrl, modelBaseUrl: ctx.modelBaseUrl });
  try {
    const byName = Object.fromEntries(loops.map((loop) => [loop.name, loop])) as Record<
      EpisodeLoopName,
      EpisodeLoopProcess
    >;
    const cpu = await cpuPart(ctx, bridge, byName);
    const rate = await ratePart(ctx, bridge, byName);
    const loadAtEnd = loadavg();
    return {
      title: '14. Peers',
      method:
        `CPU: ${cpu.episodes} episodes of ${CPU_TURNS} turns (one streaming Chat Completions call and one ORS tool call each, ` +
        "zero-latency fakes in other processes), one after another, played by each way; CPU is that way's own process over the " +
        'batch (`process.cpuUsage`, every thread): for runbridge a process of its own serving the runs over its HTTP API, each ' +
        'read by one subscriber in the load client; for each SDK and loop a process of its own playing the episodes in-process. ' +
        `Throughput: ${rate.runs} episodes of ${RATE_TURNS} turns at ${CONCURRENCY} at once, the model answering after ` +
        `${LATENCY_MS} ms (the scale workload of benchmark 3), runbridge driven through one port by the load client. ` +
        `Medians, and medians of per-round ratios, over ${cpu.rounds} (CPU) and ${rate.rounds} (throughput) alternating ` +
        `round(s), after ${cpu.warmUps} warm-up round(s) (CPU) and one untimed wave per way (throughput).`,
      tables: [cpu.table, rate.table],
      verdicts: [cpu.verdict, rate.verdict],
      notes: [
        `Peers: ${PEER_PACKAGES.map((name) => `${name} ${packageVersion(name)}`).join(', ')}, used as their docs show: ` +
          "the AI SDK with `streamText`, the task's tools as `tool({ inputSchema: jsonSchema(…), execute })`, " +
          '`stopWhen: [stepCountIs(20), a tool said finished]`, its `fullStream` read to the end; the Agents SDK with an ' +
          '`OpenAIProvider` on the fake model (`useResponses: false`), `setTracingDisabled(true)`, the tools as `tool({ strict: ' +
          'false, execute })`, `toolUseBehavior` ending the run once a tool said finished, `run(agent, prompt, { stream: true, ' +
          'maxTurns: 20 })` with every event read. Each tool makes the ORS call over `node:http` keep-alive with the ORS code ' +
          'the raw loop uses, so the peers differ from the raw loop only in their model loop.',
        'runbridge also does what the peers leave to their caller: one run event per step with its JSON and SSE frame, the ' +
          'HTTP API and the subscriber stream, validation of every ORS answer, a ping loop per session, retries and timeouts.',
        `Load average (1, 5, 15 min) at the start: ${formatLoad(loadAtStart)}; at the end: ${formatLoad(loadAtEnd)} ` +
          '(other work shared the machine).',
      ],
    };
  } finally {
    await bridge.stop();
    await Promise.all(loops.map((loop) => loop.stop()));
  }
}

async function cpuPart(ctx: BenchContext, bridge: BridgeProcess, loops: Record<EpisodeLoopName, EpisodeLoopProcess>) {
  const episodes = ctx.quick ? 5 : 40;
  const rounds = ctx.quick ? 1 : 7;
  const warmUps = warmUpRounds(ctx.quick);
  const model = `solve-in-${CPU_TURNS}`;
  const load = new LoadClient(ctx.load);
  const loopVariant = (loop: EpisodeLoopProcess) => async (): Promise<Sample> => {
    const played = expectPlayed(
      await loop.playEpisodes({ model, episodes, concurrency: 1 }),
      episodes,
      CPU_TURNS,
      loop.name,
    );
    return { cpuUs: (played.cpuMs * 1000) / episodes, wall: (played.elapsedMs * 1000) / episodes };
  };
  const variants: Record<Way, () => Promise<Sample>> = {
    api: async () => {
      const turn = await driveApiTurns(load, {
        url: bridge.url,
        model,
        episodes,
        turns: CPU_TURNS,
        what: 'Peers',
        server: bridge,
      });
      return { cpuUs: turn.cpuUsPerTurn * CPU_TURNS, wall: turn.wallUsPerTurn * CPU_TURNS };
    },
    'ai-sdk': loopVariant(loops['ai-sdk']),
    'openai-agents': loopVariant(loops['openai-agents']),
    'raw-loop': loopVariant(loops['raw-loop']),
    'sdk-loop': loopVariant(loops['sdk-loop']),
  };
  ctx.progress(`peers: CPU per episode, warming up (${warmUps} round(s))`);
  await alternate(warmUps, variants);
  ctx.progress(`peers: CPU per episode, ${episodes} episodes of ${CPU_TURNS} turns, ${rounds} round(s)`);
  const samples = await alternate(rounds, variants);
  const cpuOf = (way: Way) => samples[way].map((sample) => sample.cpuUs);
  const lightest = PEERS.reduce((best, peer) => (median(cpuOf(peer)) < median(cpuOf(best)) ? peer : best));
  const versus = (way: Way, baseline: Way) => pairedRatio(cpuOf(way), cpuOf(baseline));
  const vsLightest = versus('api', lightest);
  return {
    episodes,
    rounds,
    warmUps,
    table: {
      columns: [
        `${CPU_TURNS}-turn episodes one at a time`,
        'CPU µs per episode',
        'wall µs per episode',
        'CPU vs lightest peer',
        'CPU vs raw loop',
        'CPU vs SDK loop',
      ],
      rows: WAYS.map((way) => [
        LABELS[way],
        formatNumber(median(cpuOf(way))),
        formatNumber(median(samples[way].map((sample) => sample.wall))),
        formatRatio(versus(way, lightest)),
        formatRatio(versus(way, 'raw-loop')),
        formatRatio(versus(way, 'sdk-loop')),
      ]),
    },
    verdict: {
      target: `runbridge's server CPU per episode via the API ≤ ${CPU_TARGET}× the lightest peer's in-process CPU`,
      measured:
        `${formatRatio(vsLightest)} the ${lightest} peer's (raw loop: ${formatRatio(versus(lightest, 'raw-loop'))} ` +
        `for that peer, ${formatRatio(versus('api', 'raw-loop'))} for runbridge)`,
      met: vsLightest <= CPU_TARGET,
    },
  };
}

async function ratePart(ctx: BenchContext, bridge: BridgeProcess, loops: Record<EpisodeLoopName, EpisodeLoopProcess>) {
  const runs = ctx.quick ? CONCURRENCY : CONCURRENCY * 2;
  // More rounds than the CPU part's batches need: a round's turns/s moves with whatever else wants the two cores.
  const rounds = ctx.quick ? 1 : 5;
  const model = `solve-in-${RATE_TURNS}-after-${LATENCY_MS}ms`;
  const load = new LoadClient(ctx.load);
  const play = async (way: Way, count: number): Promise<Sample> => {
    if (way === 'api') {
      const { value: driven, cpuMs } = await measure(
        () =>
          load.driveRuns({
            baseUrl: bridge.url,
            body: { model: `openai:${model}` },
            runs: count,
            concurrency: CONCURRENCY,
          }),
        bridge,
      );
      if (driven.firstError !== null) throw new Error(`Peers: ${driven.failed} runs failed, e.g. ${driven.firstError}`);
      return { cpuUs: (cpuMs * 1000) / driven.turns, wall: driven.turns / (driven.elapsedMs / 1000) };
    }
    const played = expectPlayed(
      await loops[way].playEpisodes({ model, episodes: count, concurrency: CONCURRENCY }),
      count,
      RATE_TURNS,
      way,
    );
    return { cpuUs: (played.cpuMs * 1000) / played.turns, wall: played.turns / (played.elapsedMs / 1000) };
  };
  const variants = Object.fromEntries(WAYS.map((way) => [way, () => play(way, runs)])) as Record<
    Way,
    () => Promise<Sample>
  >;
  // One untimed wave each at full concurrency, so every connection pool holds what the level needs.
  ctx.progress(`peers: turns/s at ${CONCURRENCY}, warming up`);
  for (const way of WAYS) await play(way, CONCURRENCY);
  ctx.progress(`peers: turns/s at ${CONCURRENCY}, ${runs} episodes of ${RATE_TURNS} turns, ${rounds} round(s)`);
  const samples = await alternate(rounds, variants);
  const rateOf = (way: Way) => samples[way].map((sample) => sample.wall);
  const better = PEERS.reduce((best, peer) => (median(rateOf(peer)) > median(rateOf(best)) ? peer : best));
  const versus = (way: Way, baseline: Way) => pairedRatio(rateOf(way), rateOf(baseline));
  const vsBetter = versus('api', better);
  const ideal = CONCURRENCY / (LATENCY_MS / 1000);
  return {
    runs,
    rounds,
    table: {
      columns: [
        `${CONCURRENCY} episodes at once`,
        'turns/s',
        'of ideal',
        'vs better peer',
        'vs raw loop',
        'vs SDK loop',
        'CPU µs per turn (its process)',
      ],
      rows: WAYS.map((way) => [
        LABELS[way],
        formatNumber(median(rateOf(way))),
        formatPercent(median(rateOf(way)) / ideal),
        formatRatio(versus(way, better)),
        formatRatio(versus(way, 'raw-loop')),
        formatRatio(versus(way, 'sdk-loop')),
        formatNumber(median(samples[way].map((sample) => sample.cpuUs))),
      ]),
    },
    verdict: {
      target: `runbridge's turns/s at ${CONCURRENCY} concurrent ≥ ${RATE_TARGET}× the better peer's`,
      measured:
        `${formatRatio(vsBetter)} the ${better} peer's (raw loop: ${formatRatio(versus(better, 'raw-loop'))} ` +
        `for that peer, ${formatRatio(versus('api', 'raw-loop'))} for runbridge)`,
      met: vsBetter >= RATE_TARGET,
    },
  };
}

/** `played`, once every one of its `episodes` finished in exactly `turns` turns; throws naming `way` otherwise. */
function expectPlayed(played: PlayEpisodesResult, episodes: number, turns: number, way: Way): PlayEpisodesResult {
  if (played.finished !== episodes || played.turns !== episodes * turns)
    throw new Error(
      `Peers: ${way} finished ${played.finished} of ${episodes} episodes in ${played.turns} turns; expected ` +
        `${episodes * turns} turns${played.firstError === null ? '' : `, e.g. ${played.firstError}`}.`,
    );
  return played;
}

/** The installed version of `name`, from its package.json under the repository's node_modules. */
function packageVersion(name: string): string {
  const file = new URL(`../../node_modules/${name}/package.json`, import.meta.url);
  return (JSON.parse(readFileSync(file, 'utf8')) as { version: string }).version;
}

function formatLoad(load: readonly number[]): string {
  return load.map((value) => value.toFixed(2)).join(', ');
}
