import type { Response, ResponseStreamEvent } from 'openai/resources/responses/responses';
import type { ModelFinishReason, ModelPart, ModelUsage } from '../../../src/models/model.js';
import { OPENAI_VENDOR } from '../common/openai-error-to-model-error.js';
import type { StreamMapper } from '../common/stream-model-parts.js';
import { vendorFailureToModelError } from '../common/vendor-failure.js';
import type { ResponsesFollowingItem, ResponsesReasoningData } from './responses-reasoning-data.js';

/** A reasoning item as it streams: its summary parts (or raw reasoning text) by index. */
interface ReasoningItem {
  id: string;
  summaries: string[];
  content: string;
  encryptedContent: string | undefined;
}

/** Every output item of the response, in output order, as far as sending it back needs. */
type OutputEntry = { type: 'reasoning'; item: ReasoningItem } | ResponsesFollowingItem;

/**
 * Maps Responses API stream events to model parts. `response.output_text.delta` and
 * `response.refusal.delta` are `text-delta`s; reasoning summary deltas (and raw
 * `response.reasoning_text.delta`s, which servers running open models send) are `reasoning-delta`s,
 * with a blank line between summary parts. A function call is announced by a `tool-call-delta` when
 * its item is added, each non-empty argument delta is a `tool-call-delta` too, and each call is
 * yielded whole at its `response.output_item.done` — raw, even when not valid JSON. The reasoning
 * items are yielded as whole `reasoning` blocks when the response ends, not when each item ends,
 * because their send-back data names the items that followed them.
 * output-text logprobs, when requested, are a `token-data` part with each delta that carries them;
 * `response.completed` / `response.incomplete` give `usage` and `finish` through
 * {@link ResponsesStreamMapper.end}; `response.failed` and `error`
 * events throw a `ModelError` classified by the vendor's error code; a stream that ends before any
 * of these throws `model_stream_interrupted`.
 */
export class ResponsesStreamMapper implements StreamMapper<ResponseStreamEvent> {
  readonly #calls = new Map<number, { id: string; name: string; args: string }>();
  readonly #reasoning = new Map<number, ReasoningItem>();
  readonly #output: OutputEntry[] = [];
  #streamedReasoning = false;
  #madeCalls = false;
  #end: { reason: ModelFinishReason; raw: string; usage: ModelUsage | undefined } | undefined;

  /** The parts one event produces. */
  push(event: ResponseStreamEvent): ModelPart[] {
    switch (event.type) {
      case 'response.output_item.added':
        return this.#added(event.output_index, event.item);
      case 'response.function_call_arguments.delta': {
        const call = this.#calls.get(event.output_index);
        if (call === undefined || event.delta === '') return [];
        call.args += event.delta;
        return [{ type: 'tool-call-delta', id: call.id, name: call.name, delta: event.delta }];
      }
      case 'response.function_call_arguments.done': {
        const call = this.#calls.get(event.output_index);
        if (call) call.args = event.arguments;
        return [];
      }
      case 'response.reasoning_summary_text.delta':
        return this.#reasoningDelta(event.output_index, event.summary_index, event.delta);
      case 'response.reasoning_summary_text.done': {
        const item = this.#reasoning.get(event.output_index);
        if (item) item.summaries[event.summary_index] = event.text;
        return [];
      }
      case 'response.reasoning_text.delta': {
        const item = this.#reasoning.get(event.output_index);
        if (item) item.content += event.delta;
        return event.delta === '' ? [] : [{ type: 'reasoning-delta', delta: event.delta }];
      }
      case 'response.output_text.delta': {
        const parts: ModelPart[] = event.delta === '' ? [] : [{ type: 'text-delta', delta: event.delta }];
        const { logprobs } = event;
        if (logprobs && logprobs.length > 0) {
          parts.push({ type: 'token-data', data: { logprobs: logprobs.map((entry) => entry.logprob), raw: logprobs } });
        }
        return parts;
      }
      case 'response.refusal.delta':
        return event.delta === '' ? [] : [{ type: 'text-delta', delta: event.delta }];
      case 'response.output_item.done':
        return this.#done(event.output_index, event.item);
      case 'response.completed':
        return this.#finish(event.response, {
          reason: this.#madeCalls ? 'tool_calls' : 'stop',
          raw: event.response.status ?? 'completed',
        });
      case 'response.incomplete': {
        const raw = event.response.incomplete_details?.reason ?? 'incomplete';
        return this.#finish(event.response, { reason: mapIncompleteReason(raw), raw });
      }
      case 'response.failed':
        throw vendorFailureToModelError({
          vendor: OPENAI_VENDOR,
          kind: 'in-stream',
          ...(event.response.error?.code ? { vendorType: event.response.error.code } : {}),
          vendorMessage: event.response.error?.message ?? 'the response failed',
          cause: event.response.error,
        });
      case 'error':
        throw vendorFailureToModelError({
          vendor: OPENAI_VENDOR,
          kind: 'in-stream',
          ...(event.code ? { vendorType: event.code } : {}),
          vendorMessage: event.message,
          cause: event,
        });
      default:
        return [];
    }
  }

  /** The closing parts (`usage`, `finish`); throws when the response never ended. */
  end(): ModelPart[] {
    if (this.#end === undefined) {
      throw vendorFailureToModelError({
        vendor: OPENAI_VENDOR,
        kind: 'stream-cut',
        vendorMessage: 'the stream ended before response.completed',
        cause: undefined,
      });
    }
    const parts: ModelPart[] = [];
    if (this.#end.usage) parts.push({ type: 'usage', usage: this.#end.usage });
    parts.push({ type: 'finish', reason: this.#end.reason, rawReason: this.#end.raw });
    return parts;
  }

  /** Starts tracking a function call (announcing it) or a reasoning item. */
  #added(
    index: number,
    item: Extract<ResponseStreamEvent, { type: 'response.output_item.added' }>['item'],
  ): ModelPart[] {
    if (item.type === 'function_call') {
      const args = item.arguments ?? '';
      this.#calls.set(index, { id: item.call_id, name: item.name, args });
      return [{ type: 'tool-call-delta', id: item.call_id, name: item.name, delta: args }];
    }
    if (item.type === 'reasoning')
      this.#reasoning.set(index, { id: item.id, summaries: [], content: '', encryptedContent: undefined });
    return [];
  }

  #reasoningDelta(index: number, summaryIndex: number, delta: string): ModelPart[] {
    const item = this.#reasoning.get(index);
    const starting = item !== undefined && item.summaries[summaryIndex] === undefined;
    if (item) item.summaries[summaryIndex] = (item.summaries[summaryIndex] ?? '') + delta;
    if (delta === '') return [];
    // Summary parts are separate paragraphs; the streamed text should read as the block text will.
    const text = starting && this.#streamedReasoning ? `\n\n${delta}` : delta;
    this.#streamedReasoning = true;
    return [{ type: 'reasoning-delta', delta: text }];
  }

  #done(index: number, item: Extract<ResponseStreamEvent, { type: 'response.output_item.done' }>['item']): ModelPart[] {
    switch (item.type) {
      case 'function_call': {
        this.#madeCalls = true;
        if (item.id) this.#output.push({ type: 'function_call', id: item.id, callId: item.call_id });
        // The finished item is authoritative; the assembled deltas stand in where a server leaves it empty.
        const args = item.arguments !== '' ? item.arguments : (this.#calls.get(index)?.args ?? '');
        return [{ type: 'tool-call', call: { id: item.call_id, name: item.name, arguments: args } }];
      }
      case 'reasoning': {
        const streamed = this.#reasoning.get(index);
        const reasoning: ReasoningItem = {
          id: item.id,
          summaries: item.summary.length > 0 ? item.summary.map((part) => part.text) : (streamed?.summaries ?? []),
          content: item.content?.map((part) => part.text).join('') ?? streamed?.content ?? '',
          encryptedContent: item.encrypted_content ?? undefined,
        };
        this.#output.push({ type: 'reasoning', item: reasoning });
        return [];
      }
      case 'message':
        this.#output.push({ type: 'message', id: item.id });
        return [];
      default:
        return [];
    }
  }

  #finish(response: Response, finish: { reason: ModelFinishReason; raw: string }): ModelPart[] {
    this.#end = {
      ...finish,
      usage: response.usage
        ? { inputTokens: response.usage.input_tokens, outputTokens: response.usage.output_tokens }
        : undefined,
    };
    return this.#reasoningBlocks();
  }

  /** One `reasoning` part per reasoning item, each knowing the items that followed it. */
  #reasoningBlocks(): ModelPart[] {
    const parts: ModelPart[] = [];
    this.#output.forEach((entry, position) => {
      if (entry.type !== 'reasoning') return;
      const following: ResponsesFollowingItem[] = [];
      for (const next of this.#output.slice(position + 1)) {
        if (next.type === 'reasoning') break;
        following.push(next);
      }
      const { item } = entry;
      const providerData: ResponsesReasoningData = {
        vendor: 'openai-responses',
        item: {
          id: item.id,
          summary: item.summaries.map((text) => ({ type: 'summary_text', text })),
          ...(item.encryptedContent === undefined ? {} : { encrypted_content: item.encryptedContent }),
        },
        following,
      };
      const text = item.summaries.length > 0 ? item.summaries.join('\n\n') : item.content;
      parts.push({ type: 'reasoning', block: { text, providerData } });
    });
    return parts;
  }
}

/** Why a response stopped early → ours: `max_output_tokens` is `length`, `content_filter` stays, else `other`. */
export function mapIncompleteReason(reason: string): ModelFinishReason {
  if (reason === 'max_output_tokens') return 'length';
  if (reason === 'content_filter') return 'content_filter';
  return 'other';
}
