import { ModelError } from '../../../src/errors.js';
import type { Message, ToolDefinition } from '../../../src/models/conversation.js';
import type { Model, ModelPart, ModelRequest } from '../../../src/models/model.js';
import { mergeExtraBody } from '../common/merge-extra-body.js';
import { streamModelParts } from '../common/stream-model-parts.js';
import type { VendorInfo } from '../common/vendor-failure.js';
import { type CarriedTurn, carryPlan } from './carried-turn.js';
import { CompletionStreamMapper } from './completion-stream-mapper.js';
import type { ReasoningParserName } from './parsers/reasoning-parsers.js';
import type { ToolParserName } from './parsers/tool-parsers.js';
import type { RenderedIds, RenderTarget, TemplateRenderer } from './template-renderer.js';
import type { VllmClient, VllmCompletionBody } from './vllm-client.js';
import { contextExceeded, vllmErrorToModelError } from './vllm-error-to-model-error.js';
import { toVllmMessages, toVllmTools, type VllmTool } from './vllm-message-converter.js';

/** Keys of `/v1/completions` the bridge sets itself and `extra_body` may not replace. */
export const COMPLETION_RESERVED_KEYS = ['model', 'prompt', 'stream', 'stream_options', 'echo', 'n'] as const;

/** How one model reads what it writes, and renders its prompts. */
export interface VllmModelSettings {
  reasoningParser: ReasoningParserName;
  toolParser: ToolParserName;
  /** Laid under each run's `sampling.extra_body.chat_template_kwargs`. */
  chatTemplateKwargs: Record<string, unknown>;
}

/** What a {@link VllmModel} shares with the other models of its provider. */
export interface VllmModelShared {
  client: VllmClient;
  renderer: TemplateRenderer;
  /** The last turn of each conversation, keyed by the conversation (the episode's own live array). */
  turns: WeakMap<readonly Message[], CarriedTurn>;
  vendor: VendorInfo;
}

/**
 * One model of a vLLM server behind the `Model` contract, generating token-in: turn 1's prompt ids
 * come from `/tokenize`; each later turn's are the previous prompt and completion ids as the server
 * took and sampled them, then the bridge to the next turn (`TemplateRenderer.bridge`) — one
 * `/tokenize` call a turn. Where the ids cannot be carried (`carryPlan`) the prompt is rendered afresh
 * and the turn's token data says so (`newSequence`). Every generation is a streaming
 * `/v1/completions` with the ids as its prompt, `return_token_ids` and one logprob per token, read by
 * the model's parsers.
 */
export class VllmModel implements Model {
  readonly id: string;
  readonly #name: string | undefined;
  readonly #shared: VllmModelShared;
  readonly #settings: VllmModelSettings;

  /** `modelName` empty: the model the server serves, sent without a name. */
  constructor(providerName: string, modelName: string, shared: VllmModelShared, settings: VllmModelSettings) {
    this.id = modelName === '' ? providerName : `${providerName}:${modelName}`;
    this.#name = modelName === '' ? undefined : modelName;
    this.#shared = shared;
    this.#settings = settings;
  }

  stream(request: ModelRequest): AsyncIterable<ModelPart> {
    const { vendor } = this.#shared;
    const mapper = new CompletionStreamMapper(vendor);
    return streamModelParts({
      signal: request.signal,
      open: (signal) => this.#open(request, mapper, signal),
      mapper,
      toModelError: (error, phase) => vllmErrorToModelError(error, phase, vendor),
    });
  }

  async #open(request: ModelRequest, mapper: CompletionStreamMapper, signal: AbortSignal) {
    const { client, renderer, turns, vendor } = this.#shared;
    const { chat_template_kwargs: runKwargs, ...extraBody } = request.sampling.extra_body ?? {};
    if (runKwargs !== undefined && !isObject(runKwargs)) {
      throw new ModelError(
        `sampling.extra_body.chat_template_kwargs must be a JSON object (the keyword arguments of ${vendor.name}'s ` +
          'chat template, e.g. {"enable_thinking": false}); fix or remove it.',
        { code: 'model_bad_request', details: { vendor: vendor.name } },
      );
    }
    const kwargs = { ...this.#settings.chatTemplateKwargs, ...runKwargs };
    const target = renderTarget(this.#name, request.tools, kwargs);
    const { messages } = request;
    const carried = turns.get(messages);
    // This turn replaces the last one; should it fail, nothing stale is carried.
    turns.delete(messages);

    let prompt: RenderedIds | undefined;
    let newSequence: string | undefined;
    if (carried !== undefined) {
      const plan = carryPlan(carried, messages, target.key);
      if ('reason' in plan) {
        newSequence = plan.reason;
      } else {
        const bridge = await renderer.bridge(
          toVllmMessages(plan.newMessages),
          plan.completionIds.at(-1)!,
          target,
          signal,
        );
        if (bridge === undefined) newSequence = 'no_end_of_turn';
        else prompt = { ...bridge, ids: [...carried.promptIds, ...plan.completionIds, ...bridge.ids] };
      }
    }
    prompt ??= await renderer.render(toVllmMessages(messages), target, signal);
    if (prompt.ids.length >= prompt.maxModelLen) throw contextExceeded(vendor, prompt.ids.length, prompt.maxModelLen);

    const { reasoningParser, toolParser } = this.#settings;
    const body = completionBody(this.#name, prompt, request, extraBody, vendor);
    mapper.begin({
      promptIds: prompt.ids,
      parsers: { reasoning: reasoningParser, tool: toolParser, promptOpensReasoning: prompt.opensReasoning },
      keepTopLogprobs: typeof body.logprobs === 'number' && body.logprobs > 0,
      // vLLM takes a missing max_tokens as all the context has left (extra_body may replace ours).
      maxTokens: Math.min(typeof body.max_tokens === 'number' ? body.max_tokens : Infinity, room(prompt)),
      ...(newSequence === undefined ? {} : { newSequence }),
      renderer: {
        model: this.#name ?? '',
        templateFingerprint: await renderer.fingerprint(target, signal),
        chatTemplateKwargs: kwargs,
        reasoningParser,
        toolParser,
      },
      onEnd: (turn) => {
        turns.set(messages, { ...turn, messageCount: messages.length, renderKey: target.key });
      },
    });
    return client.completions(body, signal);
  }
}

/**
 * The body of one generation: the ids, streamed with usage, `return_token_ids`, the sampled token's
 * logprob (`logprobs: 0`), the run's sampling — `max_tokens` at most what the context has left, and
 * all of it when the run names none (vLLM's own default is 16) — and `extra_body` laid over it.
 */
function completionBody(
  model: string | undefined,
  prompt: RenderedIds,
  request: ModelRequest,
  extraBody: Record<string, unknown>,
  vendor: VendorInfo,
): VllmCompletionBody {
  const { sampling } = request;
  const left = room(prompt);
  const body: VllmCompletionBody = {
    ...(model === undefined ? {} : { model }),
    prompt: prompt.ids,
    stream: true,
    stream_options: { include_usage: true },
    return_token_ids: true,
    logprobs: 0,
    max_tokens: Math.min(sampling.max_tokens ?? left, left),
  };
  if (sampling.temperature !== undefined) body.temperature = sampling.temperature;
  if (sampling.top_p !== undefined) body.top_p = sampling.top_p;
  if (sampling.seed !== undefined) body.seed = sampling.seed;
  // The ids are the point of this provider: a caller's extra_body cannot turn them off.
  return { ...mergeExtraBody(body, extraBody, COMPLETION_RESERVED_KEYS, vendor), return_token_ids: true };
}

/** How many tokens the context has left after `prompt`'s. */
function room(prompt: RenderedIds): number {
  return prompt.maxModelLen - prompt.ids.length;
}

/** Each tool list's vLLM form and cache key, made once: an episode sends the same list every turn. */
const converted = new WeakMap<readonly ToolDefinition[], { tools: VllmTool[]; json: string }>();

function renderTarget(
  model: string | undefined,
  tools: readonly ToolDefinition[],
  kwargs: Record<string, unknown>,
): RenderTarget {
  let entry = converted.get(tools);
  if (entry === undefined) {
    const vllmTools = toVllmTools(tools);
    entry = { tools: vllmTools, json: JSON.stringify(vllmTools) };
    converted.set(tools, entry);
  }
  return { model, tools: entry.tools, kwargs, key: `${JSON.stringify([model ?? null, kwargs])}\n${entry.json}` };
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
