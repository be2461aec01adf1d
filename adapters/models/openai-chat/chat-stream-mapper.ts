import { nanoid } from 'nanoid';
import type { ChatCompletionChunk } from 'openai/resources/chat/completions';
import type { ModelFinishReason, ModelPart, ModelUsage, TokenData } from '../../../src/models/model.js';
import { OPENAI_VENDOR } from '../common/openai-error-to-model-error.js';
import type { StreamMapper } from '../common/stream-model-parts.js';
import { type VendorInfo, vendorFailureToModelError } from '../common/vendor-failure.js';

/**
 * Fields OpenAI-compatible servers add to a delta: the reasoning text (`reasoning_content` from
 * vLLM and DeepSeek, `reasoning` from newer vLLM and OpenRouter).
 */
export interface CompatChatDelta extends ChatCompletionChunk.Choice.Delta {
  /** Reasoning text as vLLM (older releases) and DeepSeek send it. */
  reasoning_content?: string | null;
  /** Reasoning text as newer vLLM releases and OpenRouter send it. */
  reasoning?: string | null;
}

/** A choice as vLLM sends it with `return_token_ids`: the ids of the tokens in this delta. */
export interface CompatChatChoice extends ChatCompletionChunk.Choice {
  /** The delta, with the compatible servers' reasoning fields. */
  delta: CompatChatDelta;
  /** Ids of the tokens this delta adds. */
  token_ids?: number[] | null;
}

/** A chunk as OpenAI-compatible servers send it; vLLM puts the prompt's token ids on the first one. */
export interface CompatChatChunk extends ChatCompletionChunk {
  /** The choices, with the compatible servers' extra fields. */
  choices: CompatChatChoice[];
  /** Ids of the prompt's tokens, on the first chunk. */
  prompt_token_ids?: number[] | null;
}

interface PendingCall {
  id: string | undefined;
  name: string;
  arguments: string;
  /** Whether a `tool-call-delta` has announced the call (from then on its id is fixed). */
  announced: boolean;
}

/**
 * Maps Chat Completions chunks to model parts. Only choice 0 is read (the bridge never asks for
 * `n > 1`). Text and refusal deltas are `text-delta`s; reasoning deltas (`reasoning_content` or
 * `reasoning`) are `reasoning-delta`s, and each run of them is closed by a whole `reasoning` block
 * when text, a tool call or the finish reason follows. Tool-call deltas are assembled per `index`
 * (parallel calls may interleave): each call is announced by a `tool-call-delta` once its name is
 * known (with the arguments so far), each later argument piece is one too, and the complete
 * `tool-call`s follow in index order when the finish reason arrives — arguments exactly as streamed,
 * even when they are not valid JSON. A call whose id has not come by its announcement (or ever) gets
 * a generated `call_…` id. Each chunk's token data (vLLM `prompt_token_ids`/`token_ids`,
 * `logprobs.content`) is a `token-data` part of its own, so the turn's cap counts it as it comes.
 * `usage` (from the chunk with empty `choices`) and `finish` come from {@link ChatStreamMapper.end},
 * which throws `model_stream_interrupted` when no chunk carried a finish reason: a stream without one
 * was cut, whatever the transport said.
 */
export class ChatStreamMapper implements StreamMapper<CompatChatChunk> {
  readonly #vendor: VendorInfo;
  readonly #calls = new Map<number, PendingCall>();
  #reasoning = '';
  #finish: { reason: ModelFinishReason; raw: string } | undefined;
  #usage: ModelUsage | undefined;

  /** A mapper for one stream; `vendor` names the server in the interruption error. */
  constructor(vendor: VendorInfo = OPENAI_VENDOR) {
    this.#vendor = vendor;
  }

  /** The parts one chunk produces (often none: role chunks, usage chunks, argument deltas). */
  push(chunk: CompatChatChunk): ModelPart[] {
    const parts: ModelPart[] = [];
    if (chunk.usage) {
      this.#usage = { inputTokens: chunk.usage.prompt_tokens ?? 0, outputTokens: chunk.usage.completion_tokens ?? 0 };
    }
    const tokenData: TokenData = {};
    if (isNumberArray(chunk.prompt_token_ids)) tokenData.promptTokenIds = chunk.prompt_token_ids;
    const choice = chunk.choices.find((candidate) => candidate.index === 0);
    if (choice === undefined) return withTokenData(parts, tokenData);
    // Some compatible servers omit `delta` on the finishing chunk.
    const delta: CompatChatDelta = choice.delta ?? {};

    const reasoning = nonEmpty(delta.reasoning_content) ?? nonEmpty(delta.reasoning);
    if (reasoning !== undefined) {
      this.#reasoning += reasoning;
      parts.push({ type: 'reasoning-delta', delta: reasoning });
    }
    const text = nonEmpty(delta.content) ?? nonEmpty(delta.refusal);
    if (text !== undefined) {
      this.#closeReasoning(parts);
      parts.push({ type: 'text-delta', delta: text });
    }
    if (delta.tool_calls && delta.tool_calls.length > 0) {
      this.#closeReasoning(parts);
      for (const callDelta of delta.tool_calls) parts.push(...this.#addCallDelta(callDelta));
    }
    if (isNumberArray(choice.token_ids)) tokenData.tokenIds = choice.token_ids;
    const logprobs = choice.logprobs?.content;
    if (logprobs && logprobs.length > 0) {
      tokenData.logprobs = logprobs.map((entry) => entry.logprob);
      tokenData.raw = logprobs;
    }
    if (choice.finish_reason && this.#finish === undefined) {
      this.#closeReasoning(parts);
      const calls = [...this.#calls.entries()].sort(([a], [b]) => a - b).map(([, call]) => call);
      for (const call of calls) {
        parts.push({
          type: 'tool-call',
          call: { id: call.id ?? `call_${nanoid()}`, name: call.name, arguments: call.arguments },
        });
      }
      this.#finish = { reason: mapChatFinishReason(choice.finish_reason, calls.length > 0), raw: choice.finish_reason };
    }
    return withTokenData(parts, tokenData);
  }

  /** The closing parts (`usage`, `finish`); throws when the stream never finished. */
  end(): ModelPart[] {
    if (this.#finish === undefined) {
      throw vendorFailureToModelError({
        vendor: this.#vendor,
        kind: 'stream-cut',
        vendorMessage: 'the stream ended without a finish_reason',
        cause: undefined,
      });
    }
    const parts: ModelPart[] = [];
    if (this.#usage) parts.push({ type: 'usage', usage: this.#usage });
    parts.push({ type: 'finish', reason: this.#finish.reason, rawReason: this.#finish.raw });
    return parts;
  }

  /** Folds one tool-call delta into its call; returns the `tool-call-delta` it makes (none before the name). */
  #addCallDelta(callDelta: ChatCompletionChunk.Choice.Delta.ToolCall): ModelPart[] {
    const index = typeof callDelta.index === 'number' ? callDelta.index : this.#indexWithoutIndex(callDelta.id);
    let call = this.#calls.get(index);
    if (call === undefined) {
      call = { id: undefined, name: '', arguments: '', announced: false };
      this.#calls.set(index, call);
    }
    // The id and name come whole in the first delta of a call; some servers repeat them later.
    if (call.id === undefined && callDelta.id) call.id = callDelta.id;
    if (call.name === '' && callDelta.function?.name) call.name = callDelta.function.name;
    const piece = callDelta.function?.arguments ?? '';
    call.arguments += piece;
    if (call.name === '') return [];
    if (!call.announced) {
      call.announced = true;
      call.id ??= `call_${nanoid()}`;
      return [{ type: 'tool-call-delta', id: call.id, name: call.name, delta: call.arguments }];
    }
    return piece === '' ? [] : [{ type: 'tool-call-delta', id: call.id!, name: call.name, delta: piece }];
  }

  /**
   * Some compatible servers send whole calls without `index`: a new id starts a new call, and a
   * delta without one continues the latest call.
   */
  #indexWithoutIndex(id: string | undefined): number {
    let latest = -1;
    for (const [index, call] of this.#calls) {
      if (id !== undefined && call.id === id) return index;
      latest = Math.max(latest, index);
    }
    return latest < 0 || id !== undefined ? latest + 1 : latest;
  }

  #closeReasoning(parts: ModelPart[]): void {
    if (this.#reasoning === '') return;
    parts.push({ type: 'reasoning', block: { text: this.#reasoning } });
    this.#reasoning = '';
  }
}

/** `parts` and, when the chunk carried any, a `token-data` part of the chunk's own token data. */
function withTokenData(parts: ModelPart[], data: TokenData): ModelPart[] {
  for (const _key in data) {
    parts.push({ type: 'token-data', data });
    break;
  }
  return parts;
}

/**
 * A Chat Completions finish reason → ours: `stop`, `length`, `content_filter` and `tool_calls`
 * (also the legacy `function_call`) map by name, anything else is `other`. A `stop` on a turn that
 * made tool calls is `tool_calls` — some compatible servers say `stop` there.
 */
export function mapChatFinishReason(raw: string, madeToolCalls: boolean): ModelFinishReason {
  switch (raw) {
    case 'stop':
      return madeToolCalls ? 'tool_calls' : 'stop';
    case 'tool_calls':
    case 'function_call':
      return 'tool_calls';
    case 'length':
      return 'length';
    case 'content_filter':
      return 'content_filter';
    default:
      return 'other';
  }
}

function nonEmpty(value: string | null | undefined): string | undefined {
  return typeof value === 'string' && value !== '' ? value : undefined;
}

function isNumberArray(value: unknown): value is number[] {
  return Array.isArray(value) && value.every((item) => typeof item === 'number');
}
