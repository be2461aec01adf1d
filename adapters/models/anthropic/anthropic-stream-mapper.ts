import type { RawMessageStreamEvent, StopReason } from '@anthropic-ai/sdk/resources/messages';
import type { ModelFinishReason, ModelPart, ModelUsage } from '../../../src/models/model.js';
import type { StreamMapper } from '../common/stream-model-parts.js';
import { vendorFailureToModelError } from '../common/vendor-failure.js';
import { ANTHROPIC_VENDOR } from './anthropic-error-to-model-error.js';
import type { AnthropicReasoningData } from './anthropic-reasoning-data.js';

/** A content block being streamed, by its `index`. */
type OpenBlock =
  | { kind: 'thinking'; text: string; signature: string }
  | { kind: 'redacted_thinking'; data: string }
  | { kind: 'tool_use'; id: string; name: string; json: string }
  /** Text streams straight through; server tools and other blocks are not ours to report. */
  | { kind: 'passthrough' };

/** Token counts as the Messages API reports them (all cumulative). */
interface AnthropicUsage {
  input_tokens?: number | null;
  cache_creation_input_tokens?: number | null;
  cache_read_input_tokens?: number | null;
  output_tokens?: number | null;
}

/**
 * Maps Messages API stream events to model parts. `text_delta`s are `text-delta`s;
 * `thinking_delta`s are `reasoning-delta`s, and each thinking block is yielded whole as a
 * `reasoning` part when it stops, its signature kept in `providerData` (a `redacted_thinking` block
 * likewise, with empty text and its opaque `data`) so the next turn can send it back unmodified.
 * A `tool_use` block is announced by a `tool-call-delta` with empty `delta` when it starts, each
 * non-empty `input_json_delta` is a `tool-call-delta` too, and the pieces are joined and yielded as
 * one `tool-call` when the block stops — raw, even when not valid JSON; no delta at all means `{}`.
 * `ping` never reaches here (the SDK
 * drops it). Usage counts input as `input_tokens` plus cache creation and cache reads (Anthropic
 * reports them apart) and takes the latest cumulative counts. {@link AnthropicStreamMapper.end}
 * returns `usage` and `finish`, and throws `model_stream_interrupted` when `message_stop` never came.
 */
export class AnthropicStreamMapper implements StreamMapper<RawMessageStreamEvent> {
  readonly #blocks = new Map<number, OpenBlock>();
  readonly #usage = { input_tokens: 0, cache_creation_input_tokens: 0, cache_read_input_tokens: 0, output_tokens: 0 };
  #stopReason: StopReason | null = null;
  #stopped = false;

  /** The parts one event produces. */
  push(event: RawMessageStreamEvent): ModelPart[] {
    switch (event.type) {
      case 'message_start':
        this.#addUsage(event.message.usage);
        return [];
      case 'content_block_start':
        return this.#start(event.index, event.content_block);
      case 'content_block_delta':
        return this.#delta(event.index, event.delta);
      case 'content_block_stop':
        return this.#stop(event.index);
      case 'message_delta':
        if (event.delta.stop_reason) this.#stopReason = event.delta.stop_reason;
        this.#addUsage(event.usage);
        return [];
      case 'message_stop':
        this.#stopped = true;
        return [];
      default:
        return [];
    }
  }

  /** The closing parts (`usage`, `finish`); throws when the stream never reached `message_stop`. */
  end(): ModelPart[] {
    if (!this.#stopped) {
      throw vendorFailureToModelError({
        vendor: ANTHROPIC_VENDOR,
        kind: 'stream-cut',
        vendorMessage: 'the stream ended before message_stop',
        cause: undefined,
      });
    }
    return [
      { type: 'usage', usage: this.#modelUsage() },
      this.#stopReason === null
        ? { type: 'finish', reason: 'other' }
        : { type: 'finish', reason: mapAnthropicStopReason(this.#stopReason), rawReason: this.#stopReason },
    ];
  }

  #start(
    index: number,
    block: Extract<RawMessageStreamEvent, { type: 'content_block_start' }>['content_block'],
  ): ModelPart[] {
    switch (block.type) {
      case 'text':
        this.#blocks.set(index, { kind: 'passthrough' });
        return block.text === '' ? [] : [{ type: 'text-delta', delta: block.text }];
      case 'thinking':
        this.#blocks.set(index, { kind: 'thinking', text: block.thinking, signature: block.signature });
        return block.thinking === '' ? [] : [{ type: 'reasoning-delta', delta: block.thinking }];
      case 'redacted_thinking':
        this.#blocks.set(index, { kind: 'redacted_thinking', data: block.data });
        return [];
      case 'tool_use':
        this.#blocks.set(index, { kind: 'tool_use', id: block.id, name: block.name, json: '' });
        return [{ type: 'tool-call-delta', id: block.id, name: block.name, delta: '' }];
      default:
        this.#blocks.set(index, { kind: 'passthrough' });
        return [];
    }
  }

  #delta(index: number, delta: Extract<RawMessageStreamEvent, { type: 'content_block_delta' }>['delta']): ModelPart[] {
    const block = this.#blocks.get(index);
    switch (delta.type) {
      case 'text_delta':
        return delta.text === '' ? [] : [{ type: 'text-delta', delta: delta.text }];
      case 'thinking_delta':
        if (block?.kind === 'thinking') block.text += delta.thinking;
        return delta.thinking === '' ? [] : [{ type: 'reasoning-delta', delta: delta.thinking }];
      case 'signature_delta':
        if (block?.kind === 'thinking') block.signature += delta.signature;
        return [];
      case 'input_json_delta':
        if (block?.kind !== 'tool_use' || delta.partial_json === '') return [];
        block.json += delta.partial_json;
        return [{ type: 'tool-call-delta', id: block.id, name: block.name, delta: delta.partial_json }];
      default:
        return [];
    }
  }

  #stop(index: number): ModelPart[] {
    const block = this.#blocks.get(index);
    this.#blocks.delete(index);
    switch (block?.kind) {
      case 'thinking': {
        const providerData: AnthropicReasoningData = {
          vendor: 'anthropic',
          type: 'thinking',
          signature: block.signature,
        };
        return [{ type: 'reasoning', block: { text: block.text, providerData } }];
      }
      case 'redacted_thinking': {
        const providerData: AnthropicReasoningData = {
          vendor: 'anthropic',
          type: 'redacted_thinking',
          data: block.data,
        };
        return [{ type: 'reasoning', block: { text: '', providerData } }];
      }
      case 'tool_use':
        return [
          {
            type: 'tool-call',
            call: { id: block.id, name: block.name, arguments: block.json === '' ? '{}' : block.json },
          },
        ];
      default:
        return [];
    }
  }

  /** Each count is cumulative where present; an absent or null one keeps its earlier value. */
  #addUsage(usage: AnthropicUsage): void {
    for (const key of Object.keys(this.#usage) as Array<keyof AnthropicUsage>) {
      const value = usage[key];
      if (typeof value === 'number') this.#usage[key] = value;
    }
  }

  #modelUsage(): ModelUsage {
    const usage = this.#usage;
    return {
      inputTokens: usage.input_tokens + usage.cache_creation_input_tokens + usage.cache_read_input_tokens,
      outputTokens: usage.output_tokens,
    };
  }
}

/**
 * An Anthropic stop reason → ours: `end_turn` and `stop_sequence` are `stop`, `tool_use` is
 * `tool_calls`, `max_tokens` and `model_context_window_exceeded` are `length`, `refusal` is
 * `content_filter`, anything else (`pause_turn`, reasons added later) is `other`.
 */
export function mapAnthropicStopReason(reason: string): ModelFinishReason {
  switch (reason) {
    case 'end_turn':
    case 'stop_sequence':
      return 'stop';
    case 'tool_use':
      return 'tool_calls';
    case 'max_tokens':
    case 'model_context_window_exceeded':
      return 'length';
    case 'refusal':
      return 'content_filter';
    default:
      return 'other';
  }
}
