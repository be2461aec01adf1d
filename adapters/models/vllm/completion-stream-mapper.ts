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
  /** Set when the prompt was rendered afresh although an earlier turn could have been carried. */
  newSequence?: string;
  /** What rendered the prompt; `model` is what the server names it in its chunks, when it does. */
  renderer: PromptRenderer;
  /** Hears how the turn ended, for the next one to carry. */
  onEnd(turn: FinishedTurn): void;
}

/**
 * Maps the chunks of a streaming vLLM `/v1/completions` to model parts: each chunk's text goes
 * through the {@link CompletionTextParser} (reasoning, answer, tool calls), its `token_ids` and
 * logprobs are gathered; `usage`, `token-data` (the prompt ids — the server's own when it echoes
 * them — the completion ids and one logprob each, why a new sequence began, the renderer) and
 * `finish` come at the end, which throws `model_stream_interrupted` when no chunk carried a finish
 * reason. Only choice 0 is read.
 */
export class CompletionStreamMapper implements StreamMapper<VllmCompletionChunk> {
  readonly #vendor: VendorInfo;
  #plan: CompletionPlan | undefined;
  #parser: CompletionTextParser | undefined;
  #model: string | undefined;
  #promptIds: number[] | undefined;
  #tokenIds: number[] | undefined;
  #logprobs: Array<number | null> = [];
  #top: Array<Record<string, number> | null> = [];
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
    if (isIds(choice.token_ids)) (this.#tokenIds ??= []).push(...choice.token_ids);
    const logprobs = choice.logprobs;
    if (logprobs?.token_logprobs) this.#logprobs.push(...logprobs.token_logprobs);
    if (logprobs?.top_logprobs && this.#plan?.keepTopLogprobs) this.#top.push(...logprobs.top_logprobs);
    const parts = choice.text ? this.#parser!.push(choice.text) : [];
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

  /** Notes what the turn publishes: the answer text and the calls, as the episode will record them. */
  #seen(parts: ModelPart[]): ModelPart[] {
    for (const part of parts) {
      if (part.type === 'text-delta') this.#content += part.delta;
      else if (part.type === 'tool-call') this.#calls.push(part.call);
    }
    return parts;
  }

  #tokenData(plan: CompletionPlan, promptIds: number[]): TokenData {
    const ids = this.#tokenIds;
    // A logprob the server left out would shift every one after it: then none is kept.
    const logprobs =
      ids !== undefined && this.#logprobs.length === ids.length && this.#logprobs.every((value) => value !== null)
        ? (this.#logprobs as number[])
        : undefined;
    return {
      promptTokenIds: promptIds,
      ...(ids === undefined ? {} : { tokenIds: ids }),
      ...(logprobs === undefined ? {} : { logprobs }),
      ...(this.#top.length > 0 ? { raw: this.#top } : {}),
      ...(plan.newSequence === undefined ? {} : { newSequence: { reason: plan.newSequence } }),
      renderer: { ...plan.renderer, model: this.#model ?? plan.renderer.model },
    };
  }
}

function isIds(value: unknown): value is number[] {
  return Array.isArray(value) && value.every((item) => typeof item === 'number');
}
