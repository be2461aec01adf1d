import type { CancelReason } from '../../protocol/run-events.js';
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
  /**
   * The records that ended since the last such message, each as JSON text. Batched per turn of the
   * worker's event loop and sent as strings: each `postMessage` wakes the other thread, and in a profile
   * under load the calls, one per episode, took about a third of a millisecond of the worker each; a
   * string crosses as one copy where a record's nested objects are cloned one by one. The record ends
   * as JSON in the file anyway, so nothing the file would keep is lost.
   */
  | { kind: 'played'; records: Array<{ id: number; record: string }> }
  | { kind: 'closed' };

/** What a worker thread is started with (`workerData`). */
export interface WorkerStart {
  setup: string;
  data: unknown;
}
