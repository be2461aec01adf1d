import { Agent } from 'node:http';
import { playHandWrittenEpisodes } from '../baselines/hand-written-episode.js';
import { openOrsEpisode } from '../baselines/open-ors-episode.js';
import { nodeHttp } from '../baselines/raw-http.js';
import { BENCH_ENV, BENCH_TASKS } from '../fakes/bench-environment.js';
import { serveBenchCalls } from '../support/bench-child.js';
import { measure } from '../support/measure.js';
import { runPool } from '../support/run-pool.js';
import {
  EPISODE_LOOPS,
  type EpisodeLoopName,
  PlayEpisodesParamsSchema,
  type PlayEpisodesResult,
} from './episode-loop-api.js';
import type { PeerEpisodeOutcome, PeerLoop } from './peer-loop.js';

// An episode-loop process (see `episode-loop-api.ts`): `episode-loop-process.ts <loop> <model base
// URL> <ORS URL>`. Only the chosen loop's SDK is loaded.

const MAX_TURNS = 20;
const { loopName, modelBaseUrl, orsUrl } = parseArgv(process.argv.slice(2));

function parseArgv(args: string[]): { loopName: EpisodeLoopName; modelBaseUrl: string; orsUrl: string } {
  const [name, modelBaseUrl, orsUrl] = args;
  const loopName = EPISODE_LOOPS.find((loop) => loop === name);
  if (loopName === undefined || modelBaseUrl === undefined || orsUrl === undefined)
    throw new Error(`usage: episode-loop-process.ts <${EPISODE_LOOPS.join('|')}> <model base URL> <ORS URL>`);
  return { loopName, modelBaseUrl, orsUrl };
}

/** Plays `episodes` episodes of `model`, `concurrency` at once; answers each one's outcome, or its error. */
type PlayBatch = (
  model: string,
  episodes: number,
  concurrency: number,
) => Promise<Array<PeerEpisodeOutcome | { error: string }>>;

/**
 * A peer's batch: each episode's ORS exchanges on `node:http` with a keep-alive agent of the batch's
 * own (as the hand-written loop has), the model loop the peer's.
 */
function peerBatch(loop: PeerLoop): PlayBatch {
  return async (model, episodes, concurrency) => {
    const agent = new Agent({ keepAlive: true, maxSockets: Number.POSITIVE_INFINITY });
    const http = nodeHttp(agent);
    try {
      return await runPool(episodes, concurrency, async (index) => {
        try {
          const episode = await openOrsEpisode(http, {
            orsUrl,
            env: BENCH_ENV,
            task: { split: 'train', index: index % BENCH_TASKS },
          });
          try {
            return await loop.play(episode, model);
          } finally {
            await episode.close();
          }
        } catch (error) {
          return { error: error instanceof Error ? error.message : String(error) };
        }
      });
    } finally {
      agent.destroy();
    }
  };
}

/** The hand-written loop's batch on `transport`; it counts an episode that threw as unfinished. */
function handWrittenBatch(transport: 'node-http' | 'openai-sdk'): PlayBatch {
  return (model, episodes, concurrency) =>
    playHandWrittenEpisodes(
      { modelBaseUrl, orsUrl, env: BENCH_ENV, model, maxTurns: MAX_TURNS },
      episodes,
      concurrency,
      transport,
    );
}

async function createBatch(): Promise<PlayBatch> {
  switch (loopName) {
    case 'ai-sdk':
      return peerBatch(
        (await import('./create-ai-sdk-loop.js')).createAiSdkLoop({ modelBaseUrl, maxTurns: MAX_TURNS }),
      );
    case 'openai-agents':
      return peerBatch(
        (await import('./create-openai-agents-loop.js')).createOpenAiAgentsLoop({ modelBaseUrl, maxTurns: MAX_TURNS }),
      );
    case 'raw-loop':
      return handWrittenBatch('node-http');
    case 'sdk-loop':
      return handWrittenBatch('openai-sdk');
  }
}

const playBatch = await createBatch();

async function playEpisodes(params: unknown): Promise<PlayEpisodesResult> {
  const { model, episodes, concurrency } = PlayEpisodesParamsSchema.parse(params);
  const { value: outcomes, wallMs, cpuMs } = await measure(() => playBatch(model, episodes, concurrency));
  const result: PlayEpisodesResult = { elapsedMs: wallMs, cpuMs, finished: 0, turns: 0, firstError: null };
  for (const outcome of outcomes) {
    if ('error' in outcome) result.firstError ??= outcome.error;
    else if (!outcome.finished) result.firstError ??= `an episode ended after ${outcome.turns} turns, unfinished`;
    else {
      result.finished++;
      result.turns += outcome.turns;
    }
  }
  return result;
}

serveBenchCalls({ playEpisodes });
