import { createOpenAiChatProvider } from '../../adapters/models/openai-chat/openai-chat-provider.js';
import { OrsClient } from '../../src/ors/client/ors-client.js';
import { EventLog } from '../../src/runs/event-log.js';
import { runEpisode } from '../../src/runs/run-episode.js';
import { type LoopTransport, playHandWrittenEpisodes } from '../baselines/hand-written-episode.js';
import { BENCH_ENV } from '../fakes/bench-environment.js';
import { LoadClient } from '../load/load-client-api.js';
import { type BenchContext, type BenchResult, formatNumber, formatRatio } from '../support/bench-result.js';
import { driveApiTurns } from '../support/drive-api-turns.js';
import { alternate, measure, median, pairedRatio, warmUpRounds } from '../support/measure.js';
import { measureAllocation } from '../support/measure-allocation.js';
import { startBenchBridge } from '../support/start-bench-bridge.js';

/** Turns per episode: the fake model solves the bench environment in exactly this many. */
const TURNS = 10;
/**
 * Issue 27's targets, against the SDK loop (the node:http loop with its model calls through the
 * `openai` SDK, as the bridge must make them): CPU per turn of `runEpisode` in-process and of a run
 * through the API read by one subscriber, and what `runEpisode` allocates per episode.
 */
const TARGET_EPISODE_VS_SDK = 1.2;
const TARGET_API_VS_SDK = 1.5;
const TARGET_ALLOCATION_VS_SDK = 1.25;

interface Trial {
  wallUsPerTurn: number;
  cpuUsPerTurn: number;
}

/**
 * Benchmark 2: what the bridge adds per turn over the least code making the same two HTTP exchanges
 * per turn (a streaming model call and an ORS tool call), against a zero-latency fake model and
 * fake ORS server in other processes. Episodes run one after another, so each figure is the time a
 * turn takes end to end; CPU is this process's alone. Three ways are timed: a run through the HTTP
 * API read by one subscriber (the load client drives it), `runEpisode` called directly (the
 * orchestrator without the HTTP layer), and the hand-written loop on the global `fetch` and on
 * `node:http` with a keep-alive agent (the physical limit).
 */
export async function benchOrchestratorOverhead(ctx: BenchContext): Promise<BenchResult> {
  const episodes = ctx.quick ? 5 : 40;
  const rounds = ctx.quick ? 1 : 7;
  const warmUps = warmUpRounds(ctx.quick);
  const allocationRounds = ctx.quick ? 1 : 3;
  const model = `solve-in-${TURNS}`;
  const load = new LoadClient(ctx.load);
  const bridge = await startBenchBridge({ orsUrl: ctx.orsUrl, modelBaseUrl: ctx.modelBaseUrl });
  const ors = new OrsClient({ baseUrl: ctx.orsUrl });
  const chatModel = createOpenAiChatProvider({ apiKey: 'bench', baseUrl: ctx.modelBaseUrl }).create(model);
  try {
    const perTurn = (wallMs: number, cpuMs: number, turns: number): Trial => ({
      wallUsPerTurn: (wallMs * 1000) / turns,
      cpuUsPerTurn: (cpuMs * 1000) / turns,
    });
    const expectTurns = (turns: number, what: string): number => {
      if (turns !== episodes * TURNS)
        throw new Error(`Orchestrator overhead: ${what} played ${turns} turns; expected ${episodes * TURNS}.`);
      return turns;
    };
    /** `episodes` episodes through `runEpisode`, one after another, each logging its events; answers the turns. */
    const playEpisodes = async () => {
      let turns = 0;
      for (let i = 0; i < episodes; i++) {
        const log = new EventLog(`run_bench${i}`);
        const record = await runEpisode({
          ors,
          model: chatModel,
          env: BENCH_ENV,
          task: { split: 'train', index: i },
          maxTurns: 20,
          toolOutputEventChars: 8192,
          signal: new AbortController().signal,
          emit: (event, detail) => log.append(event, detail),
        });
        if (record.end.status !== 'completed')
          throw new Error(`Orchestrator overhead: an episode ended ${JSON.stringify(record.end)}.`);
        turns += record.turns;
      }
      return expectTurns(turns, 'runEpisode');
    };
    const playLoop = async (transport: LoopTransport) => {
      const played = await playHandWrittenEpisodes(
        { modelBaseUrl: ctx.modelBaseUrl, orsUrl: ctx.orsUrl, env: BENCH_ENV, model, maxTurns: 20 },
        episodes,
        1,
        transport,
      );
      return expectTurns(
        played.reduce((sum, episode) => sum + (episode.finished ? episode.turns : 0), 0),
        `the hand-written loop on ${transport}`,
      );
    };
    const loop = async (transport: LoopTransport) => {
      const { value, wallMs, cpuMs } = await measure(() => playLoop(transport));
      return perTurn(wallMs, cpuMs, value);
    };
    const variants = {
      api: () => driveApiTurns(load, { url: bridge.url, model, episodes, turns: TURNS, what: 'Orchestrator overhead' }),
      episode: async () => {
        const { value, wallMs, cpuMs } = await measure(playEpisodes);
        return perTurn(wallMs, cpuMs, value);
      },
      loop: () => loop('fetch'),
      loopHttp: () => loop('node-http'),
      loopSdk: () => loop('openai-sdk'),
    };
    ctx.progress(`orchestrator overhead: warming up (${warmUps} round(s))`);
    await alternate(warmUps, variants);
    ctx.progress(`orchestrator overhead: ${episodes} episodes × ${TURNS} turns, ${rounds} round(s)`);
    const samples = await alternate(rounds, variants);
    ctx.progress(`orchestrator overhead: what an episode allocates, ${allocationRounds} round(s)`);
    const kibPerEpisode = async (play: () => Promise<unknown>) =>
      (await measureAllocation(play)).bytes / 1024 / episodes;
    const allocated = await alternate(allocationRounds, {
      api: () => kibPerEpisode(variants.api),
      episode: () => kibPerEpisode(playEpisodes),
      loopHttp: () => kibPerEpisode(() => playLoop('node-http')),
      loopSdk: () => kibPerEpisode(() => playLoop('openai-sdk')),
    });
    const wall = (trials: Trial[]) => median(trials.map((trial) => trial.wallUsPerTurn));
    const cpu = (trials: Trial[]) => median(trials.map((trial) => trial.cpuUsPerTurn));
    const versus = (trials: Trial[], baseline: Trial[], key: keyof Trial) =>
      pairedRatio(
        trials.map((trial) => trial[key]),
        baseline.map((trial) => trial[key]),
      );
    const row = (name: string, trials: Trial[]) => [
      name,
      formatNumber(wall(trials)),
      formatRatio(versus(trials, samples.loop, 'wallUsPerTurn')),
      formatRatio(versus(trials, samples.loopHttp, 'wallUsPerTurn')),
      formatNumber(cpu(trials)),
      formatRatio(versus(trials, samples.loop, 'cpuUsPerTurn')),
      formatRatio(versus(trials, samples.loopHttp, 'cpuUsPerTurn')),
      formatRatio(versus(trials, samples.loopSdk, 'cpuUsPerTurn')),
    ];
    const cpuVs = (trials: Trial[]) => ({
      sdk: versus(trials, samples.loopSdk, 'cpuUsPerTurn'),
      raw: versus(trials, samples.loopHttp, 'cpuUsPerTurn'),
    });
    const episodeCpu = cpuVs(samples.episode);
    const apiCpu = cpuVs(samples.api);
    const sdkVsHttp = versus(samples.loopSdk, samples.loopHttp, 'cpuUsPerTurn');
    const allocationVs = (kib: number[]) => ({
      sdk: pairedRatio(kib, allocated.loopSdk),
      raw: pairedRatio(kib, allocated.loopHttp),
    });
    const episodeAllocation = allocationVs(allocated.episode);
    const allocationRow = (name: string, kib: number[]) => [
      name,
      formatNumber(median(kib)),
      formatRatio(pairedRatio(kib, allocated.loopSdk)),
      formatRatio(pairedRatio(kib, allocated.loopHttp)),
    ];
    const bothRatios = ({ sdk, raw }: { sdk: number; raw: number }) =>
      `${formatRatio(sdk)} (${formatRatio(raw)} the node:http loop)`;
    return {
      title: '2. Orchestrator overhead per turn',
      method:
        `${episodes} episodes of ${TURNS} turns, one after another, each turn one streaming Chat Completions call and one ` +
        'ORS tool call against zero-latency fakes in other processes, vs a hand-written loop making the same exchanges with ' +
        'eventsource-parser, once on the global `fetch` and once on `node:http` with a keep-alive agent, and the node:http loop ' +
        'again with its model calls made through the `openai` SDK, as the bridge must make them. Medians, and medians ' +
        `of per-round ratios, over ${rounds} alternating round(s) after ${warmUps} warm-up round(s).`,
      tables: [
        {
          columns: [
            'way',
            'µs per turn',
            'vs fetch loop',
            'vs node:http loop',
            'CPU µs per turn',
            'CPU vs fetch loop',
            'CPU vs node:http loop',
            'CPU vs SDK loop',
          ],
          rows: [
            row('run via the HTTP API, 1 subscriber', samples.api),
            row('runEpisode in-process', samples.episode),
            row('hand-written loop, fetch', samples.loop),
            row('hand-written loop, node:http keep-alive', samples.loopHttp),
            row('hand-written loop, node:http, model calls through the openai SDK', samples.loopSdk),
          ],
        },
        {
          columns: ['way', 'KiB allocated per episode', 'vs SDK loop', 'vs node:http loop'],
          rows: [
            allocationRow('run via the HTTP API, 1 subscriber', allocated.api),
            allocationRow('runEpisode in-process', allocated.episode),
            allocationRow('hand-written loop, node:http keep-alive', allocated.loopHttp),
            allocationRow('hand-written loop, node:http, model calls through the openai SDK', allocated.loopSdk),
          ],
        },
      ],
      verdicts: [
        {
          target: `CPU per turn, runEpisode in-process ≤ ${TARGET_EPISODE_VS_SDK}× the SDK loop`,
          measured: bothRatios(episodeCpu),
          met: episodeCpu.sdk <= TARGET_EPISODE_VS_SDK,
        },
        {
          target: `CPU per turn via the API, 1 subscriber ≤ ${TARGET_API_VS_SDK}× the SDK loop`,
          measured: bothRatios(apiCpu),
          met: apiCpu.sdk <= TARGET_API_VS_SDK,
        },
        {
          target: `allocation per episode, runEpisode in-process ≤ ${TARGET_ALLOCATION_VS_SDK}× the SDK loop`,
          measured: bothRatios(episodeAllocation),
          met: episodeAllocation.sdk <= TARGET_ALLOCATION_VS_SDK,
        },
      ],
      notes: [
        'Wall time per turn includes the fakes answering (the same for every way); CPU is the measuring process only.',
        `The SDK loop is the node:http loop with only its model calls moved onto the \`openai\` SDK (on the transport the ` +
          `adapters give it): ${formatRatio(sdkVsHttp)} the node:http loop's CPU per turn in this run, a floor for any client ` +
          'that must make its model calls through the SDK, as the bridge must.',
        `Allocation: every byte the process allocated on its JavaScript heap while the wave ran, objects the collector ` +
          `had already freed included (V8's sampling heap profiler, one sample per 512 bytes on average), over ` +
          `${allocationRounds} further alternating round(s); via the API that is the bridge's side alone (the load client ` +
          'is another process).',
        'The bridge also does what the loop skips: validating every ORS answer, a ping loop per session, retries and ' +
          'timeouts, one event per step with its JSON and SSE frame, and (via the API) the POST and the subscriber stream.',
      ],
    };
  } finally {
    await bridge.shutdown();
  }
}
