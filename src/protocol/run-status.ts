import type { RunEvent } from './run-events.js';
import type { PendingApproval, RunStatus } from './run-snapshot.js';

/** Where a run stands: its status, and the tool calls waiting for a decision. */
export interface RunStanding {
  status: RunStatus;
  /**
   * The calls waiting for a decision by approval id, oldest first: keyed, so a decision costs the same
   * however many wait (a model may ask for thousands), and plain JSON, so the chat page can keep it.
   */
  pendingApprovals: Record<string, PendingApproval>;
  /** How many calls wait for a decision. */
  pendingCount: number;
}

/** The standing of a run whose log is still empty: queued. */
export function queuedStanding(): RunStanding {
  return { status: 'queued', pendingApprovals: {}, pendingCount: 0 };
}

/**
 * Folds one event into `standing` in place: the one rule of which event moves a run to which status
 * (docs/protocol.md §2). `queued → running` at `run.started`; `requires_action` while approvals wait,
 * `awaiting_input` while chat mode waits for a message; `completed`, `failed` or `cancelled` at the
 * terminal event. Imports no schema, so the chat page folds with it too.
 */
export function foldRunStatus(standing: RunStanding, event: RunEvent): void {
  switch (event.event) {
    case 'run.started':
      standing.status = 'running';
      return;
    case 'tool.approval_required': {
      const { approval_id, tool, tool_call_id, arguments: args, turn, call_index, expires_at } = event;
      if (!Object.hasOwn(standing.pendingApprovals, approval_id)) standing.pendingCount++;
      standing.pendingApprovals[approval_id] = {
        approval_id,
        tool,
        tool_call_id,
        arguments: args,
        turn,
        call_index,
        expires_at,
      };
      standing.status = 'requires_action';
      return;
    }
    case 'tool.approval_resolved':
      if (Object.hasOwn(standing.pendingApprovals, event.approval_id)) {
        delete standing.pendingApprovals[event.approval_id];
        standing.pendingCount--;
      }
      if (standing.pendingCount === 0) standing.status = 'running';
      return;
    case 'run.awaiting_input':
      standing.status = 'awaiting_input';
      return;
    case 'message.received':
      if (standing.status === 'awaiting_input') standing.status = 'running';
      return;
    case 'run.completed':
    case 'run.failed':
    case 'run.cancelled':
      standing.pendingApprovals = {};
      standing.pendingCount = 0;
      standing.status =
        event.event === 'run.completed' ? 'completed' : event.event === 'run.failed' ? 'failed' : 'cancelled';
      return;
    default:
      return;
  }
}

/** True once a run can change no more. */
export function isFinishedStatus(status: RunStatus): boolean {
  return status === 'completed' || status === 'failed' || status === 'cancelled';
}

/** True while a run waits on a person: such a run is not orphaned, only its own timeout ends the wait. */
export function isWaitingStatus(status: RunStatus): boolean {
  return status === 'requires_action' || status === 'awaiting_input';
}
