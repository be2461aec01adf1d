import type { RunEventOf, TerminalEvent } from '../protocol/run-events.js';
import { isTerminalEvent } from '../protocol/run-events.js';
import type { EventLog, LoggedEvent } from './event-log.js';
import { waitForAppend } from './log-reader.js';

/** How an approval stands in a run's log. */
export type ApprovalState =
  | { kind: 'unknown' }
  | { kind: 'pending'; required: RunEventOf<'tool.approval_required'> }
  | { kind: 'resolved'; resolved: RunEventOf<'tool.approval_resolved'>; decisionId: string | undefined }
  /** The run ended without resolving it (another instance ended the run as lost). */
  | { kind: 'ended'; terminal: TerminalEvent };

/** Where approval `approvalId` stands in `entries`, read from the position `from` on. */
export function approvalState(entries: readonly LoggedEvent[], approvalId: string, from = 0): ApprovalState {
  let required: RunEventOf<'tool.approval_required'> | undefined;
  for (let index = from; index < entries.length; index++) {
    const { event, detail } = entries[index]!;
    if (event.event === 'tool.approval_required' && event.approval_id === approvalId) required = event;
    else if (event.event === 'tool.approval_resolved' && event.approval_id === approvalId)
      return { kind: 'resolved', resolved: event, decisionId: detail?.approval?.decision_id };
    else if (isTerminalEvent(event)) return { kind: 'ended', terminal: event };
  }
  return required ? { kind: 'pending', required } : { kind: 'unknown' };
}

/**
 * Waits until approval `approvalId` (announced at `from`) is resolved in `log` or the run ends,
 * `timeoutMs` at most: the run executing elsewhere writes the resolution, and its `decision_id`
 * (the entry's detail) says whose decision it took. Undefined when the time ran out first.
 */
export async function awaitApprovalOutcome(
  log: EventLog,
  approvalId: string,
  from: number,
  timeoutMs: number,
  now: () => number = Date.now,
): Promise<Exclude<ApprovalState, { kind: 'unknown' | 'pending' }> | undefined> {
  const deadline = now() + timeoutMs;
  let read = from;
  for (;;) {
    const state = approvalState(log.entries, approvalId, read);
    if (state.kind === 'resolved' || state.kind === 'ended') return state;
    read = log.length;
    const left = deadline - now();
    if (left <= 0) return undefined;
    // Anything but news (the time is up; a log that stopped following its store) ends the wait.
    if ((await waitForAppend(log, read, left)) !== 'appended') return undefined;
  }
}
