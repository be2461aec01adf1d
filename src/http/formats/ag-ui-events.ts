import type { RunEvent, RunEventOf } from '../../protocol/run-events.js';
import type { MessageContent } from '../../protocol/run-request.js';
import { denialText } from '../../runs/approval-texts.js';
import {
  type AgUiInterrupt,
  type AgUiResumeEntry,
  agUiRunIdAt,
  approvalInterrupt,
  inputInterrupt,
  pendingApprovalsAfter,
  resumeEntriesOf,
  waitingBefore,
} from './ag-ui-interrupts.js';
import { type OpenStreams, openReasoningTurn, openStreamsBefore, openTextTurn } from './open-streams.js';
import type { StreamContext } from './stream-format.js';
import { callsInStretchBefore, isFirstPiece, wasAnnounced } from './streamed-tool-calls.js';

/**
 * The AG-UI projection of a run's log (`format=ag-ui`), in the event types and field names of AG-UI
 * 1.0 (`@ag-ui/core`). One run is one AG-UI run, its id both `threadId` and `runId`:
 *
 * - `run.started` → `RUN_STARTED`; `prompt.available` → nothing (the AG-UI run is the assistant's side);
 * - a turn's `message.delta`s → one assistant text message, `TEXT_MESSAGE_START` before the first,
 *   `TEXT_MESSAGE_CONTENT` for each;
 * - a turn's reasoning → `REASONING_START` and `REASONING_MESSAGE_START` before the first
 *   `reasoning.delta`, `REASONING_MESSAGE_CONTENT` for each; a `reasoning.available` repeats the
 *   deltas and adds nothing, unless the provider streamed none, when it is the whole content;
 * - a call's first `tool.arguments.delta` → `TOOL_CALL_START` (parent: the turn's assistant message),
 *   each piece of its arguments → `TOOL_CALL_ARGS`;
 * - any other event first closes what the turn left open (`TOOL_CALL_END` for each call whose
 *   arguments streamed — they are complete once the model's stream is over — `TEXT_MESSAGE_END`,
 *   `REASONING_MESSAGE_END`, `REASONING_END`);
 * - `tool.started` of a call that did not stream its arguments → `TOOL_CALL_START`, `TOOL_CALL_ARGS`
 *   with the whole arguments JSON, `TOOL_CALL_END` (nothing for one that did);
 * - `tool.progress` → `CUSTOM` named `tool.progress`, our typed event as its value;
 * - `tool.completed` → `TOOL_CALL_RESULT`;
 * - `tool.approval_required` → the call whole (unless its arguments streamed), then `RUN_FINISHED`
 *   with outcome `interrupt` listing every call of the turn still waiting for a decision;
 *   `tool.approval_resolved` opens the next AG-UI run (its `RUN_STARTED.input.resume` answers the
 *   interrupt), then `TOOL_CALL_RESULT` with the denial the model is told for a denied call, and
 *   `RUN_FINISHED` `interrupt` again while other calls still wait (see `ag-ui-interrupts.ts`);
 * - `run.awaiting_input` → `RUN_FINISHED` `interrupt` (reason `input_required`); `message.received`
 *   → a user text message (`TEXT_MESSAGE_START` with role `user`, its text, `TEXT_MESSAGE_END`),
 *   after the `RUN_STARTED` of the next AG-UI run when it ends chat mode's wait;
 * - `run.completed` → `RUN_FINISHED` with outcome `success`, the episode's result and usage;
 *   `run.failed` → `RUN_ERROR`; `run.cancelled` → `RUN_FINISHED` with outcome `cancelled`, the AG-UI
 *   outcome for a run stopped before it completed that did not fail;
 * - `turn.completed` has no AG-UI counterpart beyond the closing.
 *
 * Where AG-UI has no field for what our event says (`run.started`'s env, task and model; a tool
 * result's reward, finished and error; why a run was cancelled), the frame carries our typed event
 * as `rawEvent`. Timestamps are epoch milliseconds, as AG-UI wants integers.
 */

interface AgUiBase {
  timestamp: number;
  rawEvent?: RunEvent;
}

interface AgUiTokenUsage {
  model: string;
  inputTokens: number;
  outputTokens: number;
  totalTokens: number;
}

/** The AG-UI events this projection emits. */
export type AgUiEvent = AgUiBase &
  (
    | {
        type: 'RUN_STARTED';
        threadId: string;
        runId: string;
        input?: { threadId: string; runId: string; messages: []; resume?: AgUiResumeEntry[] };
      }
    | {
        type: 'RUN_FINISHED';
        threadId: string;
        runId: string;
        outcome: { type: 'success' | 'cancelled' } | { type: 'interrupt'; interrupts: AgUiInterrupt[] };
        result?: AgUiRunResult;
        usage?: AgUiTokenUsage[];
      }
    | { type: 'RUN_ERROR'; message: string; code: string }
    | { type: 'TEXT_MESSAGE_START'; messageId: string; role: 'assistant' | 'user' }
    | { type: 'TEXT_MESSAGE_CONTENT'; messageId: string; delta: string }
    | { type: 'TEXT_MESSAGE_END'; messageId: string }
    | { type: 'REASONING_START'; messageId: string }
    | { type: 'REASONING_MESSAGE_START'; messageId: string; role: 'reasoning' }
    | { type: 'REASONING_MESSAGE_CONTENT'; messageId: string; delta: string }
    | { type: 'REASONING_MESSAGE_END'; messageId: string }
    | { type: 'REASONING_END'; messageId: string }
    | { type: 'TOOL_CALL_START'; toolCallId: string; toolCallName: string; parentMessageId: string }
    | { type: 'TOOL_CALL_ARGS'; toolCallId: string; delta: string }
    | { type: 'TOOL_CALL_END'; toolCallId: string }
    | { type: 'TOOL_CALL_RESULT'; messageId: string; toolCallId: string; content: string; role: 'tool' }
    | { type: 'CUSTOM'; name: string; value: RunEvent }
  );

/** `RUN_FINISHED.result` of a completed run: what the episode produced. */
export type AgUiRunResult = Pick<
  RunEventOf<'run.completed'>,
  'output' | 'reward' | 'rewards' | 'finished' | 'turns' | 'stop_reason'
>;

/** Id of the assistant message of `turn` (its text, and the parent of its tool calls). */
function assistantMessageId(runId: string, turn: number): string {
  return `${runId}:turn-${turn}`;
}

/** Id of the reasoning span and reasoning message of `turn` (AG-UI lets the two share it). */
function reasoningMessageId(runId: string, turn: number): string {
  return `${runId}:turn-${turn}:reasoning`;
}

/** The AG-UI events of one event of the log, in order (none for an event AG-UI has nothing for). */
export function agUiEventsOf(event: RunEvent, context: StreamContext): AgUiEvent[] {
  const timestamp = Math.round(event.timestamp * 1000);
  // After a wait, the next AG-UI run opens first, answering the interrupts (see ag-ui-interrupts.ts).
  if (!waitingBefore(context.log, event.seq)) return eventsOf(event, context, timestamp);
  const runId = `${context.runId}:${event.seq}`;
  const resume = resumeEntriesOf(event, context.log);
  const opening: AgUiEvent = {
    type: 'RUN_STARTED',
    timestamp,
    threadId: context.runId,
    runId,
    input: { threadId: context.runId, runId, messages: [], ...(resume.length > 0 ? { resume } : {}) },
  };
  return [opening, ...eventsOf(event, context, timestamp)];
}

function eventsOf(event: RunEvent, context: StreamContext, timestamp: number): AgUiEvent[] {
  const runId = context.runId;
  switch (event.event) {
    case 'message.delta': {
      const messageId = assistantMessageId(runId, event.turn);
      const open = openTextTurn(context.log, event.seq) === event.turn;
      const opening: AgUiEvent[] = open
        ? []
        : [{ type: 'TEXT_MESSAGE_START', timestamp, messageId, role: 'assistant' }];
      return [...opening, { type: 'TEXT_MESSAGE_CONTENT', timestamp, messageId, delta: event.delta }];
    }
    case 'reasoning.delta':
    case 'reasoning.available': {
      const open = openReasoningTurn(context.log, event.seq) === event.turn;
      if (open && event.event === 'reasoning.available') return [];
      const messageId = reasoningMessageId(runId, event.turn);
      const opening: AgUiEvent[] = open
        ? []
        : [
            { type: 'REASONING_START', timestamp, messageId },
            { type: 'REASONING_MESSAGE_START', timestamp, messageId, role: 'reasoning' },
          ];
      const delta = event.event === 'reasoning.delta' ? event.delta : event.text;
      return [...opening, { type: 'REASONING_MESSAGE_CONTENT', timestamp, messageId, delta }];
    }
    case 'tool.arguments.delta': {
      const toolCallId = event.tool_call_id;
      const opening: AgUiEvent[] = isFirstPiece(context.log, event.seq, toolCallId)
        ? [
            {
              type: 'TOOL_CALL_START',
              timestamp,
              toolCallId,
              toolCallName: event.tool,
              parentMessageId: assistantMessageId(runId, event.turn),
            },
          ]
        : [];
      const args: AgUiEvent[] =
        event.delta === '' ? [] : [{ type: 'TOOL_CALL_ARGS', timestamp, toolCallId, delta: event.delta }];
      return [...opening, ...args];
    }
    default:
      return [...closing(context.log, event.seq, runId, timestamp), ...ownEvents(event, context, timestamp)];
  }
}

/**
 * Closes what the stretch before `seq` left open: its forming tool calls, then its text, then its
 * reasoning (the reverse of the order a turn opens them in).
 */
function closing(log: StreamContext['log'], seq: number, runId: string, timestamp: number): AgUiEvent[] {
  const open: OpenStreams = openStreamsBefore(log, seq);
  const events: AgUiEvent[] = callsInStretchBefore(log, seq).map(({ tool_call_id }) => ({
    type: 'TOOL_CALL_END',
    timestamp,
    toolCallId: tool_call_id,
  }));
  if (open.text !== undefined)
    events.push({ type: 'TEXT_MESSAGE_END', timestamp, messageId: assistantMessageId(runId, open.text) });
  if (open.reasoning !== undefined) {
    const messageId = reasoningMessageId(runId, open.reasoning);
    events.push(
      { type: 'REASONING_MESSAGE_END', timestamp, messageId },
      { type: 'REASONING_END', timestamp, messageId },
    );
  }
  return events;
}

function ownEvents(event: RunEvent, context: StreamContext, timestamp: number): AgUiEvent[] {
  const { runId, model } = context;
  switch (event.event) {
    case 'run.started':
      return [{ type: 'RUN_STARTED', timestamp, threadId: runId, runId, rawEvent: event }];
    case 'tool.started':
      // A call whose arguments streamed was opened, filled and closed while the model wrote it; one
      // that waited for approval, when it was announced.
      return wasAnnounced(context.log, event.seq, event.tool_call_id, event.turn)
        ? []
        : wholeCall(event, runId, timestamp);
    case 'tool.approval_required': {
      const shown = wasAnnounced(context.log, event.seq, event.tool_call_id, event.turn);
      const interrupts = pendingApprovalsAfter(context.log, event.seq).map(approvalInterrupt);
      return [...(shown ? [] : wholeCall(event, runId, timestamp)), interrupted(event, context, timestamp, interrupts)];
    }
    case 'tool.approval_resolved': {
      // A denied call never runs: its result is the denial the model is told.
      const denial: AgUiEvent[] =
        event.decision === 'deny'
          ? [
              {
                type: 'TOOL_CALL_RESULT',
                timestamp,
                messageId: `${runId}:${event.tool_call_id}:result`,
                toolCallId: event.tool_call_id,
                content: denialText(event),
                role: 'tool',
                rawEvent: event,
              },
            ]
          : [];
      const still = pendingApprovalsAfter(context.log, event.seq).map(approvalInterrupt);
      return [...denial, ...(still.length > 0 ? [interrupted(event, context, timestamp, still)] : [])];
    }
    case 'run.awaiting_input':
      return [interrupted(event, context, timestamp, [inputInterrupt(event)])];
    case 'message.received': {
      const messageId = `${runId}:${event.message_id}`;
      const text = messageText(event.content);
      return [
        { type: 'TEXT_MESSAGE_START', timestamp, messageId, role: 'user', rawEvent: event },
        ...(text === '' ? [] : [{ type: 'TEXT_MESSAGE_CONTENT' as const, timestamp, messageId, delta: text }]),
        { type: 'TEXT_MESSAGE_END', timestamp, messageId },
      ];
    }
    case 'tool.completed':
      return [
        {
          type: 'TOOL_CALL_RESULT',
          timestamp,
          messageId: `${runId}:${event.tool_call_id}:result`,
          toolCallId: event.tool_call_id,
          content: event.output,
          role: 'tool',
          rawEvent: event,
        },
      ];
    case 'run.completed': {
      const { output, reward, rewards, finished, turns, stop_reason, usage } = event;
      return [
        {
          type: 'RUN_FINISHED',
          timestamp,
          threadId: runId,
          runId: agUiRunIdAt(context.log, event.seq, runId),
          outcome: { type: 'success' },
          result: { output, reward, rewards, finished, turns, stop_reason },
          usage: [
            {
              model,
              inputTokens: usage.input_tokens,
              outputTokens: usage.output_tokens,
              totalTokens: usage.total_tokens,
            },
          ],
        },
      ];
    }
    case 'tool.progress':
    case 'message.dropped':
      return [{ type: 'CUSTOM', timestamp, name: event.event, value: event }];
    case 'run.failed':
      return [{ type: 'RUN_ERROR', timestamp, message: event.error, code: event.code }];
    case 'run.cancelled':
      return [
        {
          type: 'RUN_FINISHED',
          timestamp,
          threadId: runId,
          runId: agUiRunIdAt(context.log, event.seq, runId),
          outcome: { type: 'cancelled' },
          rawEvent: event,
        },
      ];
    default:
      return [];
  }
}

/** A call shown whole: `TOOL_CALL_START`, its arguments JSON in one `TOOL_CALL_ARGS`, `TOOL_CALL_END`. */
function wholeCall(
  event: RunEventOf<'tool.started' | 'tool.approval_required'>,
  runId: string,
  timestamp: number,
): AgUiEvent[] {
  const toolCallId = event.tool_call_id;
  return [
    {
      type: 'TOOL_CALL_START',
      timestamp,
      toolCallId,
      toolCallName: event.tool,
      parentMessageId: assistantMessageId(runId, event.turn),
    },
    { type: 'TOOL_CALL_ARGS', timestamp, toolCallId, delta: JSON.stringify(event.arguments) },
    { type: 'TOOL_CALL_END', timestamp, toolCallId },
  ];
}

/** `RUN_FINISHED` of the AG-UI run open at `event`, waiting for `interrupts`. */
function interrupted(
  event: RunEvent,
  context: StreamContext,
  timestamp: number,
  interrupts: AgUiInterrupt[],
): AgUiEvent {
  return {
    type: 'RUN_FINISHED',
    timestamp,
    threadId: context.runId,
    runId: agUiRunIdAt(context.log, event.seq, context.runId),
    outcome: { type: 'interrupt', interrupts },
    rawEvent: event,
  };
}

/** The text of a person's message; images are left out (AG-UI text messages hold text). */
function messageText(content: MessageContent): string {
  if (typeof content === 'string') return content;
  return content.flatMap((part) => (part.type === 'text' ? [part.text] : [])).join('\n');
}
