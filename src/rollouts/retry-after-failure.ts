import type { ErrorCode } from '../protocol/error-codes.js';
import type { EpisodeEnd } from '../runs/episode-record.js';

/**
 * The codes of an attempt that ended with what played it: the instance executing the run (a batch of
 * the service), or the worker thread (a batch played here, `--workers`).
 */
const LOST: ReadonlySet<string> = new Set<ErrorCode>(['instance_lost', 'rollout_worker_exited']);

/** What becomes of a pair's attempt that did not complete. */
export interface AfterFailure {
  /** Whether the pair is played again (as attempt + 1). */
  retry: boolean;
  /** The pair's attempts lost with what played them so far, this one included. */
  lost: number;
}

/**
 * Whether a pair whose attempt `attempt` ended as `end` (not completed) is played again: while the
 * batch's `retries` last — but after an attempt lost with what played it only once. What killed the
 * instance or the thread may be the pair itself (a model's answer that takes the memory), and playing
 * it again blindly would only play the crash again, taking the other runs there with it. `lostBefore`
 * counts the pair's earlier attempts lost that way.
 */
export function retryAfterFailure(end: EpisodeEnd, attempt: number, retries: number, lostBefore: number): AfterFailure {
  const lost = lostBefore + (end.status === 'failed' && LOST.has(end.code) ? 1 : 0);
  return { retry: attempt <= retries && lost <= 1, lost };
}
