import type { Model } from '../models/model.js';
import type { OrsClient } from '../ors/client/ors-client.js';
import type { EpisodeCaps } from '../protocol/episode-caps.js';
import { RunEventFactory } from '../protocol/event-factory.js';
import type { RewardReduction, Sampling } from '../protocol/run-request.js';
import type { EpisodeRecord } from '../runs/episode-record.js';
import { runEpisode } from '../runs/run-episode.js';

/**
 * One rollout episode as plain data: what a batch hands to whoever plays it, in this thread or in a
 * worker thread (it crosses `postMessage`, so it holds no client, model or function).
 */
export interface RolloutEpisode {
  rolloutId: string;
  env: string;
  split: string;
  index: number;
  /** The batch's sampling with this rollout's derived seed. */
  sampling: Sampling;
  instructions: string | undefined;
  maxTurns: number;
  rewardReduction: RewardReduction;
  caps: Partial<EpisodeCaps> | undefined;
}

/** Plays one rollout episode; never throws (how it ended is in the record's `end`). */
export type EpisodePlayer = (episode: RolloutEpisode, signal: AbortSignal) => Promise<EpisodeRecord>;

/**
 * The one way a rollout episode is played, wherever it runs: `runEpisode` with the episode's settings,
 * its events folded into the record as they come and not kept, `runtime.redact` cut out of them.
 */
export function playRolloutEpisode(
  runtime: { ors: OrsClient; model: Model; now?: () => number; redact?: readonly string[] },
  episode: RolloutEpisode,
  signal: AbortSignal,
): Promise<EpisodeRecord> {
  const events = new RunEventFactory(episode.rolloutId, runtime.now);
  return runEpisode({
    ors: runtime.ors,
    model: runtime.model,
    env: episode.env,
    task: { split: episode.split, index: episode.index },
    instructions: episode.instructions,
    sampling: episode.sampling,
    maxTurns: episode.maxTurns,
    rewardReduction: episode.rewardReduction,
    // No event is sent anywhere, so no output is worth cutting: `tool.output` carries each whole, once.
    toolOutputEventChars: 0,
    ...(episode.caps === undefined ? {} : { caps: episode.caps }),
    ...(runtime.redact === undefined ? {} : { bridgeSecrets: runtime.redact }),
    signal,
    emit: (input) => events.build(input),
    ...(runtime.now === undefined ? {} : { now: runtime.now }),
  });
}
