import { isTerminalEvent, type RunEventOf, type TerminalEvent } from '../protocol/run-events.js';
import type { EventLog } from './event-log.js';
import { waitForAppend } from './log-reader.js';

/** How an approval stands in a run's log. */
export type ApprovalState =
  | { kind: 'unknown' }
  | { kind: 'pending'; required: RunEventOf<'tool.approval_required'> }
  | { kind: 'resolved'; resolved: RunEventOf<'tool.approval_resolved'>; decisionId: string | undefined }
  /** The run ended without resolving it (another instance ended the run as lost). */
  | { kind: 'ended'; terminal: TerminalEvent };

/**
 * Where approval `approvalId` stands in `log`: one lookup in the log's index of approvals, however many
 * the run asked for. An approval the run never announced is `unknown` — or `ended` once the run has.
 */
export function approvalState(log: EventLog, approvalId: string): ApprovalState {
  const approval = log.approval(approvalId);
  const resolved = approval?.resolved;
  if (resolved) return { kind: 'resolved', resolved: resolved.event, decisionId: resolved.decisionId };
  const terminal = log.terminal;
  if (terminal && isTerminalEvent(terminal)) return { kind: 'ended', terminal };
  return approval ? { kind: 'pending', required: approval.required } : { kind: 'unknown' };
}

/**
 * Waits until approval `approvalId` is resolved in `log` or the run ends, `timeoutMs` at most: the run
 * executing elsewhere writes the resolution, and its `decision_id` (the entry's detail) says whose
 * decision it took. Undefined when the time ran out first.
 */
export async function awaitApprovalOutcome(
  log: EventLog,
  approvalId: string,
  timeoutMs: number,
  now: () => number = Date.now,
): Promise<Exclude<ApprovalState, { kind: 'unknown' | 'pending' }> | undefined> {
  const deadline = now() + timeoutMs;
  for (;;) {
    const state = approvalState(log, approvalId);
    if (state.kind === 'resolved' || state.kind === 'ended') return state;
    const read = log.length;
    const left = deadline - now();
    if (left <= 0) return undefined;
    // Anything but news (the time is up; a log that stopped following its store) ends the wait.
    if ((await waitForAppend(log, read, left)) !== 'appended') return undefined;
  }
}
