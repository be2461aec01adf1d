import type { ChatFinishReason } from '../../protocol/chat-completion.js';
import type { RunEvent, RunEventOf, TerminalEvent } from '../../protocol/run-events.js';
import { finishReasonOf } from './finish-reason-of.js';
import {
  isStreamedOutput,
  openReasoningTurn,
  openStreamsBefore,
  openTextTurn,
  type StreamedOutput,
} from './open-streams.js';
import type { StreamContext } from './stream-format.js';
import { callsNeverStartedBefore, isFirstPiece } from './streamed-tool-calls.js';

/**
 * The Vercel AI SDK projection of a run's log (`format=ai-sdk`): chunks of the AI SDK's UI message
 * stream protocol (v1), which its `useChat`, `Chat` and `readUIMessageStream` turn into one assistant
 * UI message. The whole run is that one message, its id the run id; each model turn is a step:
 *
 * - `run.started` → `start` (`messageId`: the run id) and a `data-runbridge-run` part;
 * - `prompt.available` → nothing: the stream is the assistant's message, and the prompt is not part of it;
 * - the first event of a turn → `finish-step` for the turn before it (if any), then `start-step`;
 * - a turn's `message.delta`s → `text-start` before the first, `text-delta` each; its reasoning
 *   likewise as `reasoning-start` / `reasoning-delta` (a `reasoning.available` only when the turn
 *   streamed no reasoning); the first event after the model's stream closes them (`text-end`,
 *   `reasoning-end`);
 * - a call's first `tool.arguments.delta` → `tool-input-start`, each piece → `tool-input-delta`;
 * - `tool.started` → `tool-input-available` with the parsed arguments, and `data-runbridge-tool`;
 * - `tool.progress` → `data-runbridge-tool` (the same part, updated in place: `running`, `elapsed`);
 * - `tool.completed` → `tool-output-available` with the output text, or `tool-output-error` with the
 *   error message, and `data-runbridge-tool` (`completed` or `failed`, with duration, reward,
 *   finished, truncated);
 * - `tool.approval_required` → `tool-input-available` with the call's arguments, the AI SDK's own
 *   `tool-approval-request` (its `approvalId` is ours) and `data-runbridge-approval` (`pending`);
 *   `tool.approval_resolved` → `data-runbridge-approval` (`approved` or `denied`, by whom, the
 *   arguments as run) and, for a denied call, `tool-output-denied`;
 * - `message.received` → `data-runbridge-message` (a person's message, with its id and turn);
 *   `message.dropped` → `data-runbridge-message-dropped` (one the run ended before reading);
 *   `run.awaiting_input` → `data-runbridge-run` with status `awaiting_input`, and the message that
 *   ends the wait sets it back to `running`;
 * - a terminal event closes what is open, ends each call that was announced but never ran (nor was
 *   denied) with `tool-output-error` (why it did not run), then `finish-step`, `data-runbridge-run`
 *   with how the run ended, and `finish` (completed: `stop`, or `length` at `max_turns`), `error`
 *   (failed) or `abort` (cancelled). `[DONE]` follows.
 *
 * Tools are `dynamic` (their names and schemas come from the ORS environment at run time, not from
 * the app), so they appear as `dynamic-tool` parts. Data parts carry `id`s, so the AI SDK keeps one
 * `data-runbridge-run` part and one `data-runbridge-tool` part per call, updated as the run goes.
 */

/** A UI message stream chunk as this projection writes it. */
export type AiSdkChunk =
  | { type: 'start'; messageId: string }
  | { type: 'start-step' | 'finish-step' }
  | { type: 'text-start' | 'text-end' | 'reasoning-start' | 'reasoning-end'; id: string }
  | { type: 'text-delta' | 'reasoning-delta'; id: string; delta: string }
  | { type: 'tool-input-start'; toolCallId: string; toolName: string; dynamic: true }
  | { type: 'tool-input-delta'; toolCallId: string; inputTextDelta: string }
  | { type: 'tool-input-available'; toolCallId: string; toolName: string; input: unknown; dynamic: true }
  | { type: 'tool-output-available'; toolCallId: string; output: string; dynamic: true }
  | { type: 'tool-output-error'; toolCallId: string; errorText: string; dynamic: true }
  | { type: 'tool-approval-request'; approvalId: string; toolCallId: string }
  | { type: 'tool-output-denied'; toolCallId: string }
  | { type: 'data-runbridge-run'; id: string; data: RunbridgeRunData }
  | { type: 'data-runbridge-tool'; id: string; data: RunbridgeToolData }
  | { type: 'data-runbridge-approval'; id: string; data: RunbridgeApprovalData }
  | { type: 'data-runbridge-message'; id: string; data: RunbridgeMessageData }
  | { type: 'data-runbridge-message-dropped'; id: string; data: RunbridgeDroppedData }
  | { type: 'finish'; finishReason: ChatFinishReason }
  | { type: 'error'; errorText: string }
  | { type: 'abort'; reason: string };

/** `data-runbridge-run`: the run, as it starts, waits for a message in chat mode, and ends. */
export type RunbridgeRunData =
  | ({ status: 'running' } & Pick<RunEventOf<'run.started'>, 'run_id' | 'env' | 'task' | 'model'>)
  | ({ status: 'awaiting_input' } & Pick<RunEventOf<'run.awaiting_input'>, 'run_id' | 'turn' | 'expires_at'>)
  | ({ status: 'completed' } & Pick<
      RunEventOf<'run.completed'>,
      'run_id' | 'reward' | 'rewards' | 'finished' | 'turns' | 'stop_reason' | 'usage'
    >)
  | ({ status: 'failed' } & Pick<RunEventOf<'run.failed'>, 'run_id' | 'error' | 'code'>)
  | ({ status: 'cancelled' } & Pick<RunEventOf<'run.cancelled'>, 'run_id' | 'reason'>);

/** `data-runbridge-tool`: one tool call, as it starts, runs and ends. */
export type RunbridgeToolData = Pick<RunEventOf<'tool.started'>, 'tool_call_id' | 'tool' | 'turn' | 'call_index'> &
  (
    | { status: 'running'; elapsed: number }
    | ({ status: 'completed' | 'failed' } & Pick<
        RunEventOf<'tool.completed'>,
        'duration' | 'reward' | 'finished' | 'truncated'
      >)
  );

/** `data-runbridge-approval`: a call that waits for a decision, then how it was decided. */
export type RunbridgeApprovalData = Pick<
  RunEventOf<'tool.approval_required'>,
  'approval_id' | 'tool_call_id' | 'tool' | 'turn' | 'call_index' | 'arguments'
> &
  (
    | ({ status: 'pending' } & Pick<RunEventOf<'tool.approval_required'>, 'expires_at'>)
    | ({ status: 'approved' | 'denied' } & Pick<RunEventOf<'tool.approval_resolved'>, 'by' | 'reason' | 'edited'>)
  );

/** `data-runbridge-message`: a message a person sent into the run, as the model reads it in `turn`. */
export type RunbridgeMessageData = Pick<RunEventOf<'message.received'>, 'message_id' | 'content' | 'turn'>;

/** `data-runbridge-message-dropped`: a message a person sent that the run accepted, but ended before reading. */
export type RunbridgeDroppedData = Pick<RunEventOf<'message.dropped'>, 'message_id' | 'reason'>;

/** Id of the text part of `turn`. */
const textId = (turn: number) => `turn-${turn}-text`;
/** Id of the reasoning part of `turn`. */
const reasoningId = (turn: number) => `turn-${turn}-reasoning`;

/** The UI message stream chunks of one event of the log, in order. */
export function aiSdkChunksOf(event: RunEvent, context: StreamContext): AiSdkChunk[] {
  const { log } = context;
  if (isStreamedOutput(event)) return [...stepBoundary(event, log), ...streamedChunks(event, log)];
  const chunks = closing(log, event.seq);
  switch (event.event) {
    case 'prompt.available':
      return [];
    case 'run.started':
      return [
        { type: 'start', messageId: event.run_id },
        runData(event, { status: 'running', env: event.env, task: event.task, model: event.model }),
      ];
    case 'tool.started':
      return [
        ...chunks,
        ...stepBoundary(event, log),
        {
          type: 'tool-input-available',
          toolCallId: event.tool_call_id,
          toolName: event.tool,
          input: event.arguments,
          dynamic: true,
        },
        toolData(event, { status: 'running', elapsed: 0 }),
      ];
    case 'tool.progress':
      return [...chunks, ...stepBoundary(event, log), toolData(event, { status: 'running', elapsed: event.elapsed })];
    case 'tool.completed': {
      const toolCallId = event.tool_call_id;
      const { duration, reward, finished, truncated } = event;
      return [
        ...chunks,
        ...stepBoundary(event, log),
        event.error
          ? { type: 'tool-output-error', toolCallId, errorText: event.error_message ?? event.output, dynamic: true }
          : { type: 'tool-output-available', toolCallId, output: event.output, dynamic: true },
        toolData(event, {
          status: event.error ? 'failed' : 'completed',
          duration,
          reward,
          finished,
          ...(truncated === undefined ? {} : { truncated }),
        }),
      ];
    }
    case 'turn.completed':
      return [...chunks, ...stepBoundary(event, log)];
    case 'tool.approval_required':
    case 'tool.approval_resolved':
      return [...chunks, ...stepBoundary(event, log), ...approvalChunks(event)];
    case 'message.received': {
      const { message_id, content, turn } = event;
      // The message that ends chat mode's wait sets the run back to running.
      const resumed = log[event.seq - 1]?.event.event === 'run.awaiting_input' ? [resumedRunData(event, log)] : [];
      return [
        ...chunks,
        ...stepBoundary(event, log),
        ...resumed,
        { type: 'data-runbridge-message', id: message_id, data: { message_id, content, turn } },
      ];
    }
    case 'run.awaiting_input':
      return [
        ...chunks,
        ...stepBoundary(event, log),
        runData(event, { status: 'awaiting_input', turn: event.turn, expires_at: event.expires_at }),
      ];
    case 'message.dropped':
      return [
        ...chunks,
        {
          type: 'data-runbridge-message-dropped',
          id: event.message_id,
          data: { message_id: event.message_id, reason: event.reason },
        },
      ];
    default:
      // A terminal event: what the last step left open is closed before the step and the message end.
      return [...chunks, ...neverRan(event, context), ...stepBoundary(event, log), ...ending(event)];
  }
}

/**
 * A step is a model turn with the tool calls it made: `finish-step` where the previous event's turn
 * ends (at the next turn's first event, or the run's end), `start-step` at a turn's first event.
 */
function stepBoundary(event: RunEvent, log: StreamContext['log']): AiSdkChunk[] {
  const previous = log[event.seq - 1]?.event;
  const previousTurn = previous !== undefined && 'turn' in previous ? previous.turn : undefined;
  const turn = 'turn' in event ? event.turn : undefined;
  if (turn === previousTurn) return [];
  const chunks: AiSdkChunk[] = [];
  if (previousTurn !== undefined) chunks.push({ type: 'finish-step' });
  if (turn !== undefined) chunks.push({ type: 'start-step' });
  return chunks;
}

/** The chunks of the model's streamed output: text, reasoning, and the arguments of forming calls. */
function streamedChunks(event: StreamedOutput, log: StreamContext['log']): AiSdkChunk[] {
  const chunks: AiSdkChunk[] = [];
  switch (event.event) {
    case 'message.delta': {
      const id = textId(event.turn);
      if (openTextTurn(log, event.seq) !== event.turn) chunks.push({ type: 'text-start', id });
      chunks.push({ type: 'text-delta', id, delta: event.delta });
      return chunks;
    }
    case 'reasoning.delta':
    case 'reasoning.available': {
      const id = reasoningId(event.turn);
      const open = openReasoningTurn(log, event.seq) === event.turn;
      // A turn's whole reasoning again: only news when the provider streamed none of it.
      if (open && event.event === 'reasoning.available') return chunks;
      if (!open) chunks.push({ type: 'reasoning-start', id });
      chunks.push({ type: 'reasoning-delta', id, delta: event.event === 'reasoning.delta' ? event.delta : event.text });
      return chunks;
    }
    case 'tool.arguments.delta': {
      const toolCallId = event.tool_call_id;
      if (isFirstPiece(log, event.seq, toolCallId))
        chunks.push({ type: 'tool-input-start', toolCallId, toolName: event.tool, dynamic: true });
      if (event.delta !== '') chunks.push({ type: 'tool-input-delta', toolCallId, inputTextDelta: event.delta });
      return chunks;
    }
  }
}

/** Closes the text and reasoning the stretch before `seq` left open. */
function closing(log: StreamContext['log'], seq: number): AiSdkChunk[] {
  const open = openStreamsBefore(log, seq);
  const chunks: AiSdkChunk[] = [];
  if (open.text !== undefined) chunks.push({ type: 'text-end', id: textId(open.text) });
  if (open.reasoning !== undefined) chunks.push({ type: 'reasoning-end', id: reasoningId(open.reasoning) });
  return chunks;
}

/**
 * Ends the calls the model announced that never ran, so no tool part is left `input-streaming`: in
 * the step they belong to, before it finishes.
 */
function neverRan(event: TerminalEvent, context: StreamContext): AiSdkChunk[] {
  const why =
    event.event === 'run.completed'
      ? 'Not run: the episode had already finished.'
      : event.event === 'run.failed'
        ? 'Not run: the run failed before the call was sent.'
        : 'Not run: the run was cancelled before the call was sent.';
  return callsNeverStartedBefore(context.log, event.seq).map(({ tool_call_id }) => ({
    type: 'tool-output-error',
    toolCallId: tool_call_id,
    errorText: why,
    dynamic: true,
  }));
}

/** How the message ends: the run's data part, then `finish`, `error` or `abort`. */
function ending(event: TerminalEvent): AiSdkChunk[] {
  switch (event.event) {
    case 'run.completed': {
      const { reward, rewards, finished, turns, stop_reason, usage } = event;
      return [
        runData(event, { status: 'completed', reward, rewards, finished, turns, stop_reason, usage }),
        { type: 'finish', finishReason: finishReasonOf(stop_reason) },
      ];
    }
    case 'run.failed':
      return [
        runData(event, { status: 'failed', error: event.error, code: event.code }),
        { type: 'error', errorText: event.error },
      ];
    case 'run.cancelled':
      return [
        runData(event, { status: 'cancelled', reason: event.reason }),
        { type: 'abort', reason: `The run was cancelled (${event.reason}).` },
      ];
  }
}

/** The AI SDK's own approval chunks for a call that waits for a decision, and our data part about it. */
function approvalChunks(event: RunEventOf<'tool.approval_required' | 'tool.approval_resolved'>): AiSdkChunk[] {
  const { approval_id, tool_call_id: toolCallId, tool, turn, call_index, arguments: args } = event;
  const known = { approval_id, tool_call_id: toolCallId, tool, turn, call_index, arguments: args };
  const data = (status: RunbridgeApprovalData): AiSdkChunk => ({
    type: 'data-runbridge-approval',
    id: approval_id,
    data: status,
  });
  if (event.event === 'tool.approval_required') {
    return [
      // The AI SDK asks for approval of a tool part it has: the call is made available first.
      { type: 'tool-input-available', toolCallId, toolName: tool, input: args, dynamic: true },
      { type: 'tool-approval-request', approvalId: approval_id, toolCallId },
      data({ ...known, status: 'pending', expires_at: event.expires_at }),
    ];
  }
  const { by, reason, edited } = event;
  const decided = data({
    ...known,
    status: event.decision === 'approve' ? 'approved' : 'denied',
    by,
    edited,
    ...(reason === undefined ? {} : { reason }),
  });
  return event.decision === 'approve' ? [decided] : [decided, { type: 'tool-output-denied', toolCallId }];
}

/** `data-runbridge-run` back to `running`, with what `run.started` (the log's first event) said. */
function resumedRunData(event: RunEvent, log: StreamContext['log']): AiSdkChunk {
  const started = log[0]?.event;
  if (started?.event !== 'run.started') throw new Error(`run ${event.run_id}: the log does not begin with run.started`);
  return runData(event, { status: 'running', env: started.env, task: started.task, model: started.model });
}

type WithoutRunId<T> = T extends unknown ? Omit<T, 'run_id'> : never;

function runData(event: RunEvent, data: WithoutRunId<RunbridgeRunData>): AiSdkChunk {
  return { type: 'data-runbridge-run', id: event.run_id, data: { run_id: event.run_id, ...data } as RunbridgeRunData };
}

type ToolStatus = RunbridgeToolData extends infer T
  ? T extends unknown
    ? Omit<T, 'tool_call_id' | 'tool' | 'turn' | 'call_index'>
    : never
  : never;

function toolData(
  event: RunEventOf<'tool.started' | 'tool.progress' | 'tool.completed'>,
  status: ToolStatus,
): AiSdkChunk {
  const { tool_call_id, tool, turn, call_index } = event;
  return { type: 'data-runbridge-tool', id: tool_call_id, data: { tool_call_id, tool, turn, call_index, ...status } };
}
