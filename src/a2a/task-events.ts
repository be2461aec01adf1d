import { pendingApprovalsAfter } from '../http/formats/ag-ui-interrupts.js';
import { openTextTurn } from '../http/formats/open-streams.js';
import { ERROR_CODES, isErrorCode } from '../protocol/error-codes.js';
import type { RunEvent, RunEventOf } from '../protocol/run-events.js';
import type { MessageContent } from '../protocol/run-request.js';
import type { LoggedEvent } from '../runs/event-log.js';
import type { Message, Part, StreamResponse, TaskState, TaskStatus } from './a2a-schemas.js';

/**
 * A run's log as A2A stream events (docs/a2a.md, "How a run reads as a task"): a pure function of an
 * event and the events before it, as every stream format is (`src/http/formats/`), so any subscriber
 * may start at any seq and a resumed stream repeats nothing and misses nothing.
 *
 * - `run.started` → a status update `working`;
 * - a turn's `message.delta`s → the artifact `answer`: the first of a turn replaces what the artifact
 *   held (`append: false`), the others append; the end of the run sends its last chunk (`lastChunk`);
 * - `tool.started`, `tool.completed` → `working` with a status message holding a data part: the tool,
 *   its arguments, and then its duration and outcome;
 * - `tool.approval_required` → `input-required` listing the calls waiting for a decision;
 *   `tool.approval_resolved` → `working` once none waits (still `input-required` while some do);
 * - `run.awaiting_input` (chat mode) → `input-required`: the caller's turn; the `message.received`
 *   that ends that wait → `working`;
 * - the terminal event → `completed` (its metadata: reward, stop reason, summary), `failed` (or
 *   `rejected` for a task the environment refused), `canceled`.
 *
 * Every update's metadata carries the `seq` of the event it stands for, the cursor a client resumes from.
 */

/** What the events of one task are written with besides the log. */
export interface TaskFrameContext {
  taskId: string;
  contextId: string;
  log: readonly LoggedEvent[];
}

/** The id of the artifact holding the run's answer. */
export const ANSWER_ARTIFACT = 'answer';

/** A status message of the agent (its id derived from the event's seq, so a replay writes the same). */
function agentMessage(ctx: TaskFrameContext, seq: number, parts: Part[], suffix = ''): Message {
  return {
    messageId: `${ctx.taskId}-${seq}${suffix}`,
    contextId: ctx.contextId,
    taskId: ctx.taskId,
    role: 'ROLE_AGENT',
    parts,
  };
}

const json = (data: unknown): Part => ({ data, mediaType: 'application/json' });

/** Epoch seconds as RFC 3339 (UTC, milliseconds). */
export function isoTime(seconds: number): string {
  return new Date(Math.round(seconds * 1000)).toISOString();
}

function statusUpdate(ctx: TaskFrameContext, event: RunEvent, status: Omit<TaskStatus, 'timestamp'>, extra = {}) {
  return {
    statusUpdate: {
      taskId: ctx.taskId,
      contextId: ctx.contextId,
      status: { ...status, timestamp: isoTime(event.timestamp) },
      metadata: { seq: event.seq, ...extra },
    },
  } satisfies StreamResponse;
}

function answerChunk(ctx: TaskFrameContext, seq: number, text: string, append: boolean, lastChunk: boolean) {
  return {
    artifactUpdate: {
      taskId: ctx.taskId,
      contextId: ctx.contextId,
      artifact: { artifactId: ANSWER_ARTIFACT, name: ANSWER_ARTIFACT, parts: [{ text }] },
      append,
      lastChunk,
      metadata: { seq },
    },
  } satisfies StreamResponse;
}

/** The calls waiting for a decision, as the `input-required` message lists them (docs/a2a.md). */
export function pendingApprovalsMessage(
  ctx: TaskFrameContext,
  seq: number,
  pending: ReadonlyArray<RunEventOf<'tool.approval_required'>>,
): Message {
  const names = [...new Set(pending.map((call) => call.tool))].join(', ');
  return agentMessage(ctx, seq, [
    {
      text:
        `${pending.length} tool call${pending.length === 1 ? '' : 's'} (${names}) wait for a decision. Answer with a message on ` +
        'this task holding a data part {"decisions": [{"tool_call_id": …, "decision": "approve" | "deny" | "edit"}]}.',
    },
    json({
      type: 'approvals',
      pending: pending.map((call) => ({
        tool_call_id: call.tool_call_id,
        tool: call.tool,
        arguments: call.arguments,
        expires_at: isoTime(call.expires_at),
        on_timeout: call.on_timeout,
      })),
    }),
  ]);
}

/** The message of chat mode's wait: the caller's turn. */
export function yourTurnMessage(ctx: TaskFrameContext, event: RunEventOf<'run.awaiting_input'>): Message {
  return agentMessage(ctx, event.seq, [
    { text: 'Your turn: send the next message on this task.' },
    json({ type: 'input_required', expires_at: isoTime(event.expires_at) }),
  ]);
}

/**
 * The state a run's failure reads as: `rejected` when the environment refused what was asked for
 * (an unknown environment, a task it does not have: the caller's mistake, found after the run was
 * accepted), `failed` otherwise.
 */
export function failedState(code: string): TaskState {
  const status = isErrorCode(code) ? ERROR_CODES[code].status : 500;
  return status === 400 || status === 404 ? 'TASK_STATE_REJECTED' : 'TASK_STATE_FAILED';
}

/** What the last status of a completed run carries in its metadata (and so does the task's). */
export function completedMetadata(event: RunEventOf<'run.completed'>): Record<string, unknown> {
  return {
    ...(event.reward === null ? {} : { reward: event.reward }),
    stop_reason: event.stop_reason,
    summary: { turns: event.turns, finished: event.finished, usage: event.usage },
  };
}

/** The arguments of call `toolCallId`, from its `tool.started` before `seq` (a call completes after it starts). */
function argumentsOf(
  log: readonly LoggedEvent[],
  seq: number,
  toolCallId: string,
): Record<string, unknown> | undefined {
  for (let index = seq - 1; index >= 0; index--) {
    const event = log[index]!.event;
    if (event.event === 'tool.started' && event.tool_call_id === toolCallId) return event.arguments;
  }
  return undefined;
}

/** The text of the newest turn that wrote text before `seq`, and that turn (the artifact as it stands). */
function newestText(log: readonly LoggedEvent[], seq: number): { turn: number; text: string } | undefined {
  let turn: number | undefined;
  const pieces: string[] = [];
  for (let index = seq - 1; index >= 0; index--) {
    const event = log[index]!.event;
    if (event.event !== 'message.delta') continue;
    if (turn === undefined) turn = event.turn;
    else if (event.turn !== turn) break;
    pieces.push(event.delta);
  }
  return turn === undefined ? undefined : { turn, text: pieces.reverse().join('') };
}

/** The last chunk of the answer when the run completes: what makes the artifact its `output`, exactly. */
function lastAnswerChunk(ctx: TaskFrameContext, event: RunEventOf<'run.completed'>): StreamResponse[] {
  const streamed = newestText(ctx.log, event.seq);
  if (streamed === undefined && event.output === '') return [];
  if (streamed?.turn === event.turns && streamed.text === event.output && event.output !== '') {
    return [answerChunk(ctx, event.seq, '', true, true)];
  }
  // The last turn wrote no text, or not the text its output holds: the artifact is set to the output.
  return [answerChunk(ctx, event.seq, event.output, false, true)];
}

/** A message's content as parts. */
export function contentParts(content: MessageContent): Part[] {
  if (typeof content === 'string') return [{ text: content }];
  // An inline image is not sent back: it may be megabytes, and the caller has it.
  return content.map((part) => ({ text: part.type === 'text' ? part.text : '[image]' }));
}

/** The A2A stream events of the run event at `entry`, in order (none for an event A2A has nothing for). */
export function taskEventsOf(entry: LoggedEvent, ctx: TaskFrameContext): StreamResponse[] {
  const { event } = entry;
  switch (event.event) {
    case 'run.started':
      return [statusUpdate(ctx, event, { state: 'TASK_STATE_WORKING' })];
    case 'message.delta':
      return [answerChunk(ctx, event.seq, event.delta, openTextTurn(ctx.log, event.seq) === event.turn, false)];
    case 'tool.started': {
      const { tool, tool_call_id, arguments: args, turn, call_index } = event;
      const data = { type: 'tool.started', tool, tool_call_id, arguments: args, turn, call_index };
      return [
        statusUpdate(ctx, event, {
          state: 'TASK_STATE_WORKING',
          message: agentMessage(ctx, event.seq, [{ text: `Running ${tool}.` }, json(data)]),
        }),
      ];
    }
    case 'tool.completed': {
      const { tool, tool_call_id, duration, error, error_message, output, truncated, reward, finished } = event;
      const data = {
        type: 'tool.completed',
        tool,
        tool_call_id,
        arguments: argumentsOf(ctx.log, event.seq, tool_call_id) ?? {},
        duration,
        outcome: error ? 'error' : 'ok',
        ...(error_message === undefined ? {} : { error_message }),
        output,
        ...(truncated === undefined ? {} : { truncated }),
        reward,
        finished,
        turn: event.turn,
      };
      const text = error ? `${tool} failed after ${duration} s.` : `${tool} done in ${duration} s.`;
      return [
        statusUpdate(ctx, event, {
          state: 'TASK_STATE_WORKING',
          message: agentMessage(ctx, event.seq, [{ text }, json(data)]),
        }),
      ];
    }
    case 'tool.approval_required':
      return [
        statusUpdate(ctx, event, {
          state: 'TASK_STATE_INPUT_REQUIRED',
          message: pendingApprovalsMessage(ctx, event.seq, pendingApprovalsAfter(ctx.log, event.seq)),
        }),
      ];
    case 'tool.approval_resolved': {
      const pending = pendingApprovalsAfter(ctx.log, event.seq);
      if (pending.length > 0) {
        return [
          statusUpdate(ctx, event, {
            state: 'TASK_STATE_INPUT_REQUIRED',
            message: pendingApprovalsMessage(ctx, event.seq, pending),
          }),
        ];
      }
      const { tool, tool_call_id, decision, by, edited, reason } = event;
      const data = {
        type: 'tool.approval_resolved',
        tool,
        tool_call_id,
        decision,
        by,
        edited,
        ...(reason ? { reason } : {}),
      };
      return [
        statusUpdate(ctx, event, {
          state: 'TASK_STATE_WORKING',
          message: agentMessage(ctx, event.seq, [{ text: `${tool}: ${decision} (by ${by}).` }, json(data)]),
        }),
      ];
    }
    case 'run.awaiting_input':
      return [statusUpdate(ctx, event, { state: 'TASK_STATE_INPUT_REQUIRED', message: yourTurnMessage(ctx, event) })];
    case 'message.received':
      // Only the message that ends chat mode's wait changes the state; one sent mid-run joins quietly.
      return ctx.log[event.seq - 1]?.event.event === 'run.awaiting_input'
        ? [statusUpdate(ctx, event, { state: 'TASK_STATE_WORKING' })]
        : [];
    case 'run.completed':
      return [
        ...lastAnswerChunk(ctx, event),
        statusUpdate(ctx, event, { state: 'TASK_STATE_COMPLETED' }, completedMetadata(event)),
      ];
    case 'run.failed':
      return [
        statusUpdate(
          ctx,
          event,
          { state: failedState(event.code), message: agentMessage(ctx, event.seq, [{ text: event.error }]) },
          { error: { code: event.code, message: event.error } },
        ),
      ];
    case 'run.cancelled':
      return [
        statusUpdate(
          ctx,
          event,
          {
            state: 'TASK_STATE_CANCELED',
            message: agentMessage(ctx, event.seq, [{ text: `The run was cancelled (${event.reason}).` }]),
          },
          { reason: event.reason },
        ),
      ];
    default:
      return [];
  }
}
