import { z } from 'zod';
import { DecisionRequestSchema } from '../../protocol/decision-request.js';
import { MessageRequestSchema } from '../../protocol/message-request.js';
import type { RunEvent, RunEventOf } from '../../protocol/run-events.js';
import type { LoggedEvent } from '../../runs/event-log.js';
import { toolPreview } from '../../runs/ors-conversation.js';

/**
 * A run that waits on a person, in AG-UI's interrupt shape (AG-UI 1.0, `@ag-ui/core`): while a run
 * waits, its AG-UI run has finished with outcome `interrupt`, listing what it waits for; what ends a
 * wait opens the next AG-UI run (same thread, a new run id), whose `RUN_STARTED.input.resume`
 * answers the interrupts. Read from the log before an event, so frames stay a pure function of it:
 *
 * - an approval waits from its `tool.approval_required` to its `tool.approval_resolved`; the calls of
 *   one turn are announced, then decided, as one unbroken stretch of approval events;
 * - chat mode waits from `run.awaiting_input` to the next event (a `message.received`, or the
 *   terminal event of a timeout or a cancel).
 *
 * AG-UI runs are numbered by where they open: the first is the run itself, each later one
 * `<run id>:<seq>`, the seq of the event that opened it.
 */

/** Something an AG-UI run finished waiting for (AG-UI `Interrupt`). */
export interface AgUiInterrupt {
  id: string;
  reason: 'tool_approval' | 'input_required';
  message: string;
  toolCallId?: string;
  /** ISO 8601, as AG-UI consumers parse it. */
  expiresAt: string;
  /** JSON Schema of the body that answers it (`POST …/approvals/:id` or `POST …/messages`). */
  responseSchema: Record<string, unknown>;
  metadata?: Record<string, unknown>;
}

/** An answer to an interrupt, on the AG-UI run that continues from it (AG-UI `ResumeEntry`). */
export interface AgUiResumeEntry {
  interruptId: string;
  /** `resolved` when a client answered; `cancelled` when the timeout or the run's end did. */
  status: 'resolved' | 'cancelled';
  payload?: unknown;
}

const decisionSchema = z.toJSONSchema(DecisionRequestSchema, { io: 'input' }) as Record<string, unknown>;
const messageSchema = z.toJSONSchema(MessageRequestSchema, { io: 'input' }) as Record<string, unknown>;

const isApprovalEvent = (event: RunEvent): event is RunEventOf<'tool.approval_required' | 'tool.approval_resolved'> =>
  event.event === 'tool.approval_required' || event.event === 'tool.approval_resolved';

/**
 * The approvals still waiting after the event at `seq` (an approval event), oldest first: those
 * announced in its stretch of approval events and not yet resolved by then.
 */
export function pendingApprovalsAfter(
  log: readonly LoggedEvent[],
  seq: number,
): RunEventOf<'tool.approval_required'>[] {
  let start = seq;
  while (start > 0 && isApprovalEvent(log[start - 1]!.event)) start--;
  const pending = new Map<string, RunEventOf<'tool.approval_required'>>();
  for (let index = start; index <= seq; index++) {
    const event = log[index]!.event;
    if (event.event === 'tool.approval_required') pending.set(event.approval_id, event);
    else if (event.event === 'tool.approval_resolved') pending.delete(event.approval_id);
  }
  return [...pending.values()];
}

/** True when the events before `seq` left the AG-UI run finished with an interrupt (the run waits). */
export function waitingBefore(log: readonly LoggedEvent[], seq: number): boolean {
  const previous = log[seq - 1]?.event;
  if (previous === undefined) return false;
  if (previous.event === 'tool.approval_required' || previous.event === 'run.awaiting_input') return true;
  return previous.event === 'tool.approval_resolved' && pendingApprovalsAfter(log, seq - 1).length > 0;
}

/** The id of the AG-UI run open at `seq`: where the latest wait before it ended, or the run itself. */
export function agUiRunIdAt(log: readonly LoggedEvent[], seq: number, runId: string): string {
  for (let index = seq; index > 0; index--) if (waitingBefore(log, index)) return `${runId}:${index}`;
  return runId;
}

/** The interrupt of an approval. */
export function approvalInterrupt(event: RunEventOf<'tool.approval_required'>): AgUiInterrupt {
  return {
    id: event.approval_id,
    reason: 'tool_approval',
    message: `Approve ${event.tool} ${toolPreview(event.arguments)}?`,
    toolCallId: event.tool_call_id,
    expiresAt: new Date(Math.round(event.expires_at * 1000)).toISOString(),
    responseSchema: decisionSchema,
    metadata: { tool: event.tool, arguments: event.arguments, turn: event.turn },
  };
}

/** Id of chat mode's interrupt after the `run.awaiting_input` at `seq`. */
function inputInterruptId(runId: string, seq: number): string {
  return `${runId}:input:${seq}`;
}

/** The interrupt of chat mode's wait for a message. */
export function inputInterrupt(event: RunEventOf<'run.awaiting_input'>): AgUiInterrupt {
  return {
    id: inputInterruptId(event.run_id, event.seq),
    reason: 'input_required',
    message: 'The model has answered; send the next message.',
    expiresAt: new Date(Math.round(event.expires_at * 1000)).toISOString(),
    responseSchema: messageSchema,
  };
}

/**
 * The answers an event gives to the interrupts open before it (`waitingBefore`): a resolution
 * answers its approval; the event after `run.awaiting_input` answers chat mode's wait — a message as
 * `resolved`, anything else (the timeout, a cancel) as `cancelled`.
 */
export function resumeEntriesOf(event: RunEvent, log: readonly LoggedEvent[]): AgUiResumeEntry[] {
  if (event.event === 'tool.approval_resolved') {
    const { decision, arguments: args, edited, by, reason } = event;
    return [
      {
        interruptId: event.approval_id,
        status: by === 'client' ? 'resolved' : 'cancelled',
        payload: { decision, arguments: args, edited, by, ...(reason === undefined ? {} : { reason }) },
      },
    ];
  }
  const previous = log[event.seq - 1]?.event;
  if (previous?.event !== 'run.awaiting_input') return [];
  const interruptId = inputInterruptId(previous.run_id, previous.seq);
  return event.event === 'message.received'
    ? [{ interruptId, status: 'resolved', payload: { message_id: event.message_id, content: event.content } }]
    : [{ interruptId, status: 'cancelled' }];
}
