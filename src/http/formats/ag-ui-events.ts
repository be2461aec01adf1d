import type { RunEvent, RunEventOf } from '../../protocol/run-events.js';
import { type OpenStreams, openReasoningTurn, openStreamsBefore, openTextTurn } from './open-streams.js';
import type { StreamContext } from './stream-format.js';
import { callsInStretchBefore, isFirstPiece, wasAnnounced } from './streamed-tool-calls.js';

/**
 * The AG-UI projection of a run's log (`format=ag-ui`), in the event types and field names of AG-UI
 * 1.0 (`@ag-ui/core`). One run is one AG-UI run, its id both `threadId` and `runId`:
 *
 * - `run.started` → `RUN_STARTED`;
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
    | { type: 'RUN_STARTED'; threadId: string; runId: string }
    | {
        type: 'RUN_FINISHED';
        threadId: string;
        runId: string;
        outcome: { type: 'success' | 'cancelled' };
        result?: AgUiRunResult;
        usage?: AgUiTokenUsage[];
      }
    | { type: 'RUN_ERROR'; message: string; code: string }
    | { type: 'TEXT_MESSAGE_START'; messageId: string; role: 'assistant' }
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
    case 'tool.started': {
      // A call whose arguments streamed was opened, filled and closed while the model wrote it.
      if (wasAnnounced(context.log, event.seq, event.tool_call_id, event.turn)) return [];
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
          runId,
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
      return [{ type: 'CUSTOM', timestamp, name: 'tool.progress', value: event }];
    case 'run.failed':
      return [{ type: 'RUN_ERROR', timestamp, message: event.error, code: event.code }];
    case 'run.cancelled':
      return [
        { type: 'RUN_FINISHED', timestamp, threadId: runId, runId, outcome: { type: 'cancelled' }, rawEvent: event },
      ];
    default:
      return [];
  }
}
