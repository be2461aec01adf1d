import type { CancelReason } from '../../protocol/run-events.js';
import type { EpisodeRecord } from '../../runs/episode-record.js';
import type { RolloutEpisode } from '../play-rollout-episode.js';

/**
 * What the parent of a rollout batch and its worker threads tell each other. Both ends are this
 * package's own code in one process, so the messages are typed, not validated.
 */

/** Parent → worker. */
export type ToWorker =
  | { kind: 'play'; id: number; episode: RolloutEpisode }
  | { kind: 'cancel'; id: number; reason: CancelReason }
  | { kind: 'close' };

/** Worker → parent. */
export type FromWorker =
  | { kind: 'ready'; model: string }
  | { kind: 'setup-failed'; message: string }
  | { kind: 'played'; id: number; record: EpisodeRecord }
  | { kind: 'closed' };

/** What a worker thread is started with (`workerData`). */
export interface WorkerStart {
  setup: string;
  data: unknown;
}
