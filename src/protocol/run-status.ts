import type { RunEvent } from './run-events.js';
import type { PendingApproval, RunStatus } from './run-snapshot.js';

/** Where a run stands: its status, and the tool calls waiting for a decision by approval id, oldest first. */
export interface RunStanding {
  status: RunStatus;
  /** Indexed by approval id, so a decision costs the same however many wait (a model may ask for thousands). */
  pendingApprovals: Map<string, PendingApproval>;
}

/** The standing of a run whose log is still empty: queued. */
export function queuedStanding(): RunStanding {
  return { status: 'queued', pendingApprovals: new Map() };
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
      standing.pendingApprovals.set(approval_id, {
        approval_id,
        tool,
        tool_call_id,
        arguments: args,
        turn,
        call_index,
        expires_at,
      });
      standing.status = 'requires_action';
      return;
    }
    case 'tool.approval_resolved':
      standing.pendingApprovals.delete(event.approval_id);
      if (standing.pendingApprovals.size === 0) standing.status = 'running';
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
      standing.pendingApprovals.clear();
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
