import { RunbridgeError } from '../../errors.js';
import type {
  ChatCompletionChunk,
  ChatDelta,
  ChatFinishReason,
  ChatToolCallDelta,
  ChatUsage,
} from '../../protocol/chat-completion.js';
import { isErrorCode } from '../../protocol/error-codes.js';
import type { RunEvent, RunEventOf, Usage } from '../../protocol/run-events.js';
import { RunCancelledError } from '../../runs/run-cancelled-error.js';
import { type ErrorBody, errorBody } from '../error-middleware.js';
import { runEndStatus } from '../routes/run-end-status.js';
import { finishReasonOf } from './finish-reason-of.js';
import { hasEventBefore, openReasoningTurn, openTextTurn } from './open-streams.js';
import type { StreamContext } from './stream-format.js';
import { isFirstPiece, wasAnnounced } from './streamed-tool-calls.js';

/**
 * The OpenAI projection of a run's log (docs/protocol.md §3.2), shared by `format=openai`, `format=combined`
 * and the chat completions route, so every OpenAI-shaped door says the same thing. The whole episode
 * reads as one assistant message (so no chunk carries the environment's prompt, `prompt.available`): a
 * role chunk at `run.started`; each turn's text in
 * `delta.content`, a blank line between turns that have text; reasoning in
 * `delta.reasoning_content`; every tool call the model made in `delta.tool_calls` at its run-wide
 * `call_index` (already run by the bridge, so it is history, not a request to the client) — in
 * pieces as the model wrote it when its arguments streamed (`tool.arguments.delta`), else whole at
 * its `tool.approval_required` (a call that waits for approval, denied ones included) or its
 * `tool.started`; then a chunk with `finish_reason` and a usage chunk with `choices: []`.
 */

/**
 * The head of every chunk and completion of a run, in OpenAI's field order: one completion id per
 * run (so all chunks name the same completion), the object type, when the run was created, its model.
 */
export function completionHead<T extends 'chat.completion' | 'chat.completion.chunk'>(
  context: StreamContext,
  object: T,
): { id: string; object: T; created: number; model: string } {
  return { id: `chatcmpl-${context.runId}`, object, created: context.created, model: context.model };
}

/** Our usage in OpenAI's names. */
function chatUsage(usage: Usage): ChatUsage {
  return {
    prompt_tokens: usage.input_tokens,
    completion_tokens: usage.output_tokens,
    total_tokens: usage.total_tokens,
  };
}

/**
 * The tool call of a `tool.started` (or, for a call that waits for approval, `tool.approval_required`:
 * the call as the model made it) event, whole, at its run-wide index.
 */
function toolCallDelta(event: RunEventOf<'tool.started' | 'tool.approval_required'>): ChatToolCallDelta {
  return {
    index: event.call_index,
    id: event.tool_call_id,
    type: 'function',
    function: { name: event.tool, arguments: JSON.stringify(event.arguments) },
  };
}

/** A piece of a tool call's arguments; the call's first piece also names it, as OpenAI's first delta does. */
function toolCallPiece(event: RunEventOf<'tool.arguments.delta'>, first: boolean): ChatToolCallDelta {
  return first
    ? {
        index: event.call_index,
        id: event.tool_call_id,
        type: 'function',
        function: { name: event.tool, arguments: event.delta },
      }
    : { index: event.call_index, function: { arguments: event.delta } };
}

/** A chunk with one choice holding `delta`. */
function deltaChunk(
  context: StreamContext,
  delta: ChatDelta,
  finishReason: ChatFinishReason | null = null,
): ChatCompletionChunk {
  return {
    ...completionHead(context, 'chat.completion.chunk'),
    choices: [{ index: 0, delta, logprobs: null, finish_reason: finishReason }],
  };
}

/**
 * The content chunk of a `message.delta`: its text, after a blank line when it is the first text of
 * a turn and an earlier turn had text, so the turns of one message do not run together.
 */
export function contentChunk(event: RunEventOf<'message.delta'>, context: StreamContext): ChatCompletionChunk {
  const opensTurn = openTextTurn(context.log, event.seq) !== event.turn;
  return deltaChunk(context, { content: turnText(event.delta, event.seq, opensTurn, context, TEXT_EVENTS) });
}

const TEXT_EVENTS = ['message.delta'] as const;
const REASONING_EVENTS = ['reasoning.delta', 'reasoning.available'] as const;

/** `text`, after a blank line when it opens its turn's part and an earlier turn's part (`kinds`) came before. */
function turnText(
  text: string,
  seq: number,
  opensTurn: boolean,
  context: StreamContext,
  kinds: ReadonlyArray<RunEvent['event']>,
): string {
  return opensTurn && hasEventBefore(context.log, seq, kinds) ? `\n\n${text}` : text;
}

/**
 * The chunks of one event, in order; none for events that say nothing OpenAI has a field for
 * (`tool.completed`, `turn.completed`) and for `run.failed` and `run.cancelled`, whose
 * {@link errorBodyOf} takes the place of the last chunks. A `reasoning.available` repeats what its
 * turn's `reasoning.delta`s streamed, so it has a chunk only for providers that stream no reasoning.
 */
export function chunksOf(event: RunEvent, context: StreamContext): ChatCompletionChunk[] {
  switch (event.event) {
    case 'run.started':
      return [deltaChunk(context, { role: 'assistant', content: '' })];
    case 'message.delta':
      return [contentChunk(event, context)];
    case 'reasoning.delta':
    case 'reasoning.available': {
      const opensTurn = openReasoningTurn(context.log, event.seq) !== event.turn;
      // A turn's whole reasoning again: only news when the provider streamed none of it.
      if (event.event === 'reasoning.available' && !opensTurn) return [];
      const text = event.event === 'reasoning.delta' ? event.delta : event.text;
      return [
        deltaChunk(context, { reasoning_content: turnText(text, event.seq, opensTurn, context, REASONING_EVENTS) }),
      ];
    }
    case 'tool.arguments.delta': {
      const first = isFirstPiece(context.log, event.seq, event.tool_call_id);
      if (!first && event.delta === '') return [];
      return [deltaChunk(context, { tool_calls: [toolCallPiece(event, first)] })];
    }
    case 'tool.approval_required':
    case 'tool.started':
      // A call whose arguments streamed, or that waited for approval, is in the chunks already.
      if (wasAnnounced(context.log, event.seq, event.tool_call_id, event.turn)) return [];
      return [deltaChunk(context, { tool_calls: [toolCallDelta(event)] })];
    case 'run.completed':
      return [
        deltaChunk(context, {}, finishReasonOf(event.stop_reason)),
        { ...completionHead(context, 'chat.completion.chunk'), choices: [], usage: chatUsage(event.usage) },
      ];
    default:
      return [];
  }
}

/** The chunk that carries a typed event alongside the OpenAI ones (`?agent_events=1`). */
export function agentEventChunk(event: RunEvent, context: StreamContext): ChatCompletionChunk {
  return { ...completionHead(context, 'chat.completion.chunk'), choices: [], agent_event: event };
}

/**
 * The error a run that did not complete ended with, as the HTTP layer answers it (with the status
 * `runEndStatus` gives): `run.failed` with its code and message, `run.cancelled` as code `cancelled` with
 * why in `details`;
 * undefined for every other event.
 */
export function runErrorOf(event: RunEvent): RunbridgeError | undefined {
  if (event.event === 'run.failed') {
    // Only the table's codes are written to a log; one this release does not know (written by a newer
    // instance sharing the store) is, to this server, an internal error.
    const code = isErrorCode(event.code) ? event.code : 'internal_error';
    return new RunbridgeError(event.error, { code, status: runEndStatus(code) });
  }
  if (event.event === 'run.cancelled') {
    const cancelled = new RunCancelledError(event.reason);
    return new RunbridgeError(cancelled.message, { code: cancelled.code, details: { reason: event.reason } });
  }
  return undefined;
}

/**
 * The error body (docs/protocol.md §2) of {@link runErrorOf}, for a run that did not complete; undefined for
 * every other event. OpenAI SDKs raise it as an `APIError`.
 */
export function errorBodyOf(event: RunEvent): ErrorBody | undefined {
  const error = runErrorOf(event);
  return error && errorBody(error);
}
