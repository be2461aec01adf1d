import type { OrsEpisode } from '../baselines/open-ors-episode.js';

/** What a peer's episode came to: its model turns, and whether a tool said the episode finished. */
export interface PeerEpisodeOutcome {
  turns: number;
  finished: boolean;
}

/**
 * A peer SDK's agent loop, set up once per process as an application would (one provider or client):
 * it plays an open ORS episode — the prompt as the user's message, the task's tools as its tools, each
 * tool calling ORS — until a tool says finished or `maxTurns` model turns have passed, stopping by the
 * SDK's own means, and reads the SDK's stream to its end.
 */
export interface PeerLoop {
  play(episode: OrsEpisode, model: string): Promise<PeerEpisodeOutcome>;
}

/** What every peer loop is set up with. */
export interface PeerLoopOptions {
  /** The fake model's base URL (`…/v1`). */
  modelBaseUrl: string;
  maxTurns: number;
}
