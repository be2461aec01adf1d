import { createOpenAiChatProvider } from '../../adapters/models/openai-chat/openai-chat-provider.js';
import { OrsClient } from '../../src/ors/client/ors-client.js';
import { EventLog } from '../../src/runs/event-log.js';
import { runEpisode } from '../../src/runs/run-episode.js';
import { type LoopTransport, playHandWrittenEpisodes } from '../baselines/hand-written-episode.js';
import { BENCH_ENV } from '../fakes/bench-environment.js';
import { LoadClient } from '../load/load-client-api.js';
import { type BenchContext, type BenchResult, formatNumber, formatRatio } from '../support/bench-result.js';
import { driveApiTurns } from '../support/drive-api-turns.js';
import { alternate, measure, median, pairedRatio } from '../support/measure.js';
import { startBenchBridge } from '../support/start-bench-bridge.js';

/** Turns per episode: the fake model solves the bench environment in exactly this many. */
const TURNS = 10;
/** CPU per turn through the API, at most this many times the fetch loop's and the node:http loop's. */
const TARGET_VS_FETCH = 1.0;
const TARGET_VS_HTTP = 2.0;

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
    const loop = async (transport: LoopTransport) => {
      const { value, wallMs, cpuMs } = await measure(async () => {
        const played = await playHandWrittenEpisodes(
          { modelBaseUrl: ctx.modelBaseUrl, orsUrl: ctx.orsUrl, env: BENCH_ENV, model, maxTurns: 20 },
          episodes,
          1,
          transport,
        );
        return played.reduce((sum, episode) => sum + (episode.finished ? episode.turns : 0), 0);
      });
      return perTurn(wallMs, cpuMs, expectTurns(value, `the hand-written loop on ${transport}`));
    };
    const variants = {
      api: () => driveApiTurns(load, { url: bridge.url, model, episodes, turns: TURNS, what: 'Orchestrator overhead' }),
      episode: async () => {
        const { value, wallMs, cpuMs } = await measure(async () => {
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
          return turns;
        });
        return perTurn(wallMs, cpuMs, expectTurns(value, 'runEpisode'));
      },
      loop: () => loop('fetch'),
      loopHttp: () => loop('node-http'),
      loopSdk: () => loop('openai-sdk'),
    };
    ctx.progress('orchestrator overhead: warming up');
    await alternate(1, variants);
    ctx.progress(`orchestrator overhead: ${episodes} episodes × ${TURNS} turns, ${rounds} round(s)`);
    const samples = await alternate(rounds, variants);
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
    const cpuVsFetch = versus(samples.api, samples.loop, 'cpuUsPerTurn');
    const cpuVsHttp = versus(samples.api, samples.loopHttp, 'cpuUsPerTurn');
    const sdkVsHttp = versus(samples.loopSdk, samples.loopHttp, 'cpuUsPerTurn');
    return {
      title: '2. Orchestrator overhead per turn',
      method:
        `${episodes} episodes of ${TURNS} turns, one after another, each turn one streaming Chat Completions call and one ` +
        'ORS tool call against zero-latency fakes in other processes, vs a hand-written loop making the same exchanges with ' +
        'eventsource-parser, once on the global `fetch` and once on `node:http` with a keep-alive agent, and the node:http loop ' +
        'again with its model calls made through the `openai` SDK, as the bridge must make them. Medians, and medians ' +
        `of per-round ratios, over ${rounds} alternating round(s) after a warm-up round.`,
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
      ],
      verdicts: [
        {
          target: `CPU per turn via the API ≤ ${TARGET_VS_FETCH}× the fetch loop`,
          measured: formatRatio(cpuVsFetch),
          met: cpuVsFetch <= TARGET_VS_FETCH,
        },
        {
          target: `CPU per turn via the API ≤ ${TARGET_VS_HTTP}× the node:http loop`,
          measured: formatRatio(cpuVsHttp),
          met: cpuVsHttp <= TARGET_VS_HTTP,
        },
      ],
      notes: [
        'Wall time per turn includes the fakes answering (the same for every way); CPU is the measuring process only.',
        `The SDK loop is the node:http loop with only its model calls moved onto the \`openai\` SDK (on the transport the ` +
          `adapters give it): ${formatRatio(sdkVsHttp)} the node:http loop's CPU per turn in this run, a floor for any client ` +
          'that must make its model calls through the SDK, as the bridge must.',
        'The bridge also does what the loop skips: validating every ORS answer, a ping loop per session, retries and ' +
          'timeouts, one event per step with its JSON and SSE frame, and (via the API) the POST and the subscriber stream.',
      ],
    };
  } finally {
    await bridge.shutdown();
  }
}
