import { isAbortError, RunbridgeError } from '../errors.js';
import { cutMessage, ERROR_MESSAGE_CHARS } from '../protocol/cut-message.js';
import type { ErrorCode } from '../protocol/error-codes.js';
import type { RunEventInput } from '../protocol/run-events.js';
import type { EpisodeFold } from './episode-fold.js';
import type { EpisodeEnd } from './episode-record.js';
import { RunCancelledError } from './run-cancelled-error.js';

/** What a call cut short by `signal` reports as its error. */
export function abortMessage(signal: AbortSignal): string {
  const reason: unknown = signal.reason;
  if (reason instanceof RunCancelledError) return `Cancelled: ${reason.message}`;
  return reason instanceof Error ? reason.message : 'Aborted.';
}

/**
 * Classifies what stopped an episode. A cancel wins over the error it caused downstream. The message is
 * cut to {@link ERROR_MESSAGE_CHARS}: it may quote what a server said, and it is stored, served in every
 * snapshot and list, and sent to webhooks.
 */
export function endFromError(error: unknown, runSignal: AbortSignal): EpisodeEnd {
  const cancel = runSignal.aborted ? runSignal.reason : error;
  if (cancel instanceof RunCancelledError) return { status: 'cancelled', reason: cancel.reason };
  // Stopped for a reason of the bridge's own (another instance ended the run): not a cancel, whatever the
  // call it cut short threw.
  if (cancel instanceof RunbridgeError) return { status: 'failed', code: cancel.code, message: cancel.message };
  if (runSignal.aborted && isAbortError(error)) return { status: 'cancelled', reason: 'client' };
  const failed = (code: ErrorCode, message: string): EpisodeEnd => ({
    status: 'failed',
    code,
    message: cutMessage(message, ERROR_MESSAGE_CHARS),
  });
  if (error instanceof RunbridgeError) return failed(error.code, error.message);
  return failed('internal_error', `Internal error: ${error instanceof Error ? error.message : String(error)}`);
}

/** The terminal event of an episode that ended as `end`; a completed one reports the fold's `totals`. */
export function terminalEventOf(end: EpisodeEnd, totals: () => ReturnType<EpisodeFold['totals']>): RunEventInput {
  switch (end.status) {
    case 'completed':
      return { event: 'run.completed', ...totals(), stop_reason: end.stopReason };
    case 'failed':
      return { event: 'run.failed', error: end.message, code: end.code };
    case 'cancelled':
      return { event: 'run.cancelled', reason: end.reason };
  }
}
