import { ModelError } from '../../../src/errors.js';
import type { ToolCall } from '../../../src/models/conversation.js';
import type { ModelPart, ModelUsage, PromptRenderer, TokenData } from '../../../src/models/model.js';
import type { StreamMapper } from '../common/stream-model-parts.js';
import { type VendorInfo, vendorFailureToModelError } from '../common/vendor-failure.js';
import { mapChatFinishReason } from '../openai-chat/chat-stream-mapper.js';
import type { FinishedTurn } from './carried-turn.js';
import type { VllmCompletionChunk } from './completion-chunks.js';
import { CompletionTextParser, type CompletionTextParserOptions } from './completion-text-parser.js';

/** What the mapper is told once the prompt is known, before the first chunk. */
export interface CompletionPlan {
  /** The ids sent as the prompt. */
  promptIds: number[];
  parsers: CompletionTextParserOptions;
  /** Keep each token's top alternatives (`logprobs` above 0 was asked for). */
  keepTopLogprobs: boolean;
  /** The most tokens the completion may have: the request's `max_tokens`, which a vLLM server never passes. */
  maxTokens: number;
  /** Set when the prompt was rendered afresh although an earlier turn could have been carried. */
  newSequence?: string;
  /** What rendered the prompt; `model` is what the server names it in its chunks, when it does. */
  renderer: PromptRenderer;
  /** Hears how the turn ended, for the next one to carry. */
  onEnd(turn: FinishedTurn): void;
}

/**
 * Maps the chunks of a streaming vLLM `/v1/completions` to model parts: each chunk's text goes
 * through the {@link CompletionTextParser} (reasoning, answer, tool calls), and its `token_ids` (with
 * their top alternatives, when kept) come at once as a `token-data` part, so that the turn's cap
 * counts them as they arrive (docs/protocol.md §1.5); more of them, or of logprobs, than `max_tokens`
 * fails the turn `model_error`. `usage`, the last `token-data` (the prompt ids — the server's own when
 * it echoes them — one logprob per completion token, why a new sequence began, the renderer) and
 * `finish` come at the end, which throws `model_stream_interrupted` when no chunk carried a finish
 * reason. The logprobs wait for the end because a gap anywhere drops them all. Only choice 0 is read.
 */
export class CompletionStreamMapper implements StreamMapper<VllmCompletionChunk> {
  readonly #vendor: VendorInfo;
  #plan: CompletionPlan | undefined;
  #parser: CompletionTextParser | undefined;
  #model: string | undefined;
  #promptIds: number[] | undefined;
  #tokenIds: number[] | undefined;
  #logprobs: Array<number | null> = [];
  #usage: ModelUsage | undefined;
  #finish: { reason: string; stop: number | string | null } | undefined;
  #content = '';
  readonly #calls: ToolCall[] = [];

  constructor(vendor: VendorInfo) {
    this.#vendor = vendor;
  }

  /** Sets the prompt and how to read the completion; called once, before the stream opens. */
  begin(plan: CompletionPlan): void {
    this.#plan = plan;
    this.#parser = new CompletionTextParser(plan.parsers);
  }

  push(chunk: VllmCompletionChunk): ModelPart[] {
    if (chunk.usage) {
      this.#usage = { inputTokens: chunk.usage.prompt_tokens ?? 0, outputTokens: chunk.usage.completion_tokens ?? 0 };
    }
    if (typeof chunk.model === 'string') this.#model ??= chunk.model;
    const choice = chunk.choices.find((candidate) => candidate.index === 0);
    if (choice === undefined) return [];
    if (isIds(choice.prompt_token_ids)) this.#promptIds ??= choice.prompt_token_ids;
    const ids = isIds(choice.token_ids) ? choice.token_ids : undefined;
    const logprobs = choice.logprobs;
    const tokenLogprobs = logprobs?.token_logprobs ?? undefined;
    this.#checkCount(
      (this.#tokenIds?.length ?? 0) + (ids?.length ?? 0),
      this.#logprobs.length + (tokenLogprobs?.length ?? 0),
    );
    // One by one: a spread of a long list would pass the engine's limit on arguments.
    if (ids) {
      const all = (this.#tokenIds ??= []);
      for (const id of ids) all.push(id);
    }
    if (tokenLogprobs) for (const value of tokenLogprobs) this.#logprobs.push(value);
    const top = this.#plan!.keepTopLogprobs ? logprobs?.top_logprobs : undefined;
    const parts: ModelPart[] =
      ids || top
        ? [{ type: 'token-data', data: { ...(ids ? { tokenIds: ids } : {}), ...(top ? { raw: top } : {}) } }]
        : [];
    if (choice.text) parts.push(...this.#parser!.push(choice.text));
    if (choice.finish_reason && this.#finish === undefined) {
      this.#finish = { reason: choice.finish_reason, stop: choice.stop_reason ?? null };
    }
    return this.#seen(parts);
  }

  end(): ModelPart[] {
    const finish = this.#finish;
    if (finish === undefined) {
      throw vendorFailureToModelError({
        vendor: this.#vendor,
        kind: 'stream-cut',
        vendorMessage: 'the stream ended without a finish_reason',
        cause: undefined,
      });
    }
    const plan = this.#plan!;
    const parts = this.#seen(this.#parser!.end());
    const promptIds = this.#promptIds ?? plan.promptIds;
    plan.onEnd({
      promptIds,
      completionIds: this.#tokenIds,
      finishReason: finish.reason,
      stopReason: finish.stop,
      content: this.#content,
      toolCalls: this.#calls,
    });
    if (this.#usage) parts.push({ type: 'usage', usage: this.#usage });
    parts.push({ type: 'token-data', data: this.#tokenData(plan, promptIds) });
    parts.push({
      type: 'finish',
      reason: mapChatFinishReason(finish.reason, this.#calls.length > 0),
      rawReason: finish.reason,
    });
    return parts;
  }

  /**
   * Refuses a completion of more ids or logprobs than the request allowed, before keeping them: a
   * server that sends one may never stop.
   */
  #checkCount(ids: number, logprobs: number): void {
    const { maxTokens } = this.#plan!;
    const count = Math.max(ids, logprobs);
    if (count <= maxTokens) return;
    throw new ModelError(
      `${this.#vendor.name} sent ${count} completion token ids or logprobs in a turn whose max_tokens is ${maxTokens}, ` +
        'which a vLLM server never does, so the bridge stopped reading it. Check that VLLM_BASE_URL is a vLLM server.',
      { code: 'model_error', details: { vendor: this.#vendor.name, max_tokens: maxTokens } },
    );
  }

  /** Notes what the turn publishes: the answer text and the calls, as the episode will record them. */
  #seen(parts: ModelPart[]): ModelPart[] {
    for (const part of parts) {
      if (part.type === 'text-delta') this.#content += part.delta;
      else if (part.type === 'tool-call') this.#calls.push(part.call);
    }
    return parts;
  }

  /** The turn's last token data: what the parts before it (the completion ids) did not carry. */
  #tokenData(plan: CompletionPlan, promptIds: number[]): TokenData {
    const ids = this.#tokenIds;
    // A logprob the server left out would shift every one after it: then none is kept.
    const logprobs =
      ids !== undefined && this.#logprobs.length === ids.length && this.#logprobs.every((value) => value !== null)
        ? (this.#logprobs as number[])
        : undefined;
    return {
      promptTokenIds: promptIds,
      ...(logprobs === undefined ? {} : { logprobs }),
      ...(plan.newSequence === undefined ? {} : { newSequence: { reason: plan.newSequence } }),
      renderer: { ...plan.renderer, model: this.#model ?? plan.renderer.model },
    };
  }
}

function isIds(value: unknown): value is number[] {
  return Array.isArray(value) && value.every((item) => typeof item === 'number');
}
