import type { Sampling } from '../protocol/run-request.js';
import type { Message, ReasoningBlock, ToolCall, ToolDefinition } from './conversation.js';

/**
 * Why a model call ended, in the model contract's words: its answer is done (`stop`), it waits for the
 * results of its tool calls (`tool_calls`), it hit its output limit (`length`), the provider's filter cut
 * it (`content_filter`), the provider reported an error (`error`), or a reason none of these names
 * (`other`; the provider's own word goes in `rawReason`). `src/runs` maps it to the run events' wire.
 */
export type ModelFinishReason = 'stop' | 'tool_calls' | 'length' | 'content_filter' | 'error' | 'other';

/** Token counts of one model call, in the provider's own accounting. */
export interface ModelUsage {
  /** Tokens of the prompt: conversation and tools. */
  inputTokens: number;
  /** Tokens the model produced: text, reasoning and tool calls. */
  outputTokens: number;
}

/**
 * Per-token data some servers return (vLLM `return_token_ids`, OpenAI-style `logprobs`); kept in the
 * run record for rollouts. Every field is optional because servers return different subsets.
 */
export interface TokenData {
  /** Token ids of the prompt. */
  promptTokenIds?: number[];
  /** Token ids of the completion. */
  tokenIds?: number[];
  /** The log probability of each completion token. */
  logprobs?: number[];
  /** The provider's raw logprobs content, when it is richer than one number per token. */
  raw?: unknown;
  /**
   * Set by a provider that carries ids from turn to turn when this turn's prompt does not continue
   * the previous turn's prompt and completion (it was rendered afresh): a trainer starts a new token
   * sequence here. `reason` says why the ids could not be carried (e.g. `truncated`).
   */
  newSequence?: { reason: string };
  /** What turned the conversation into the prompt ids, for a trainer to match; set by providers that render themselves. */
  renderer?: PromptRenderer;
}

/** The server-side tokenizer, chat template and parsers behind a turn's ids (the `vllm` provider's). */
export interface PromptRenderer {
  /** The model as the server names it. */
  model: string;
  /** A hash of the ids the server's tokenizer and chat template give a fixed probe conversation. */
  templateFingerprint: string;
  /** The keyword arguments the chat template rendered with (`{}` for none). */
  chatTemplateKwargs: Record<string, unknown>;
  /** The parsers that read reasoning and tool calls from the completion, by vLLM's names. */
  reasoningParser: string;
  toolParser: string;
}

/**
 * What a model stream yields, in order of arrival. Text and reasoning arrive as deltas; a reasoning
 * block is also delivered whole when it ends; a tool call may stream its arguments as
 * `tool-call-delta`s and always arrives whole as a `tool-call` once complete (adapters assemble the
 * arguments); `token-data` parts come as the vendor sends the data, each adding to the ones before it
 * (`addTokenData`), so the turn's cap counts them as they arrive; `usage` and `finish` come at the end.
 * Exactly one `finish` ends a successful stream.
 */
export type ModelPart =
  | { type: 'text-delta'; delta: string }
  | { type: 'reasoning-delta'; delta: string }
  | { type: 'reasoning'; block: ReasoningBlock }
  | ToolCallDeltaPart
  | { type: 'tool-call'; call: ToolCall }
  | { type: 'usage'; usage: ModelUsage }
  | { type: 'token-data'; data: TokenData }
  | { type: 'finish'; reason: ModelFinishReason; rawReason?: string };

/**
 * A piece of a tool call's arguments as the model streams them, before the call's `tool-call` part.
 * The first piece of a call announces it as soon as the provider names it, so its `delta` may be
 * empty; later pieces never are. A call's pieces, joined in order, are its raw arguments text as
 * streamed; its `tool-call` part stays authoritative (a provider may correct the text at the end).
 * Pieces are optional — a model may deliver a call whole — but a model that streams them announces
 * its calls in the order their `tool-call` parts come, with the same `id` and `name`.
 */
export interface ToolCallDeltaPart {
  type: 'tool-call-delta';
  /** The call's id, as its `tool-call` part will carry it. */
  id: string;
  /** The tool's name. */
  name: string;
  /** The next piece of the arguments text (empty only in the piece that announces the call). */
  delta: string;
}

/** One model call: the conversation so far, the tools on offer, sampling settings, and the signal that aborts it. */
export interface ModelRequest {
  /** The conversation so far, oldest first. */
  messages: Message[];
  /** The tools the model may call; empty for none. */
  tools: ToolDefinition[];
  /** Sampling settings of the run, `extra_body` to be passed to the vendor as it is. */
  sampling: Sampling;
  /** Aborted when the run is cancelled or times out: the stream should stop and throw its reason. */
  signal: AbortSignal;
}

/**
 * The narrow contract between orchestration and a provider. `stream` yields {@link ModelPart}s and
 * throws a `ModelError` (a `model_…` code of src/protocol/error-codes.ts) when the provider fails
 * after its retries, or the signal's abort reason when aborted. It never yields vendor types.
 */
export interface Model {
  /** `provider:name` as the caller asked for it, e.g. `openai:gpt-4.1-mini`. */
  readonly id: string;
  /** Streams one model call's parts, ending with exactly one `finish` (see {@link ModelPart}). */
  stream(request: ModelRequest): AsyncIterable<ModelPart>;
}

/** Builds models of one provider; `main.ts` registers one per configured provider. */
export interface ModelProvider {
  /** The prefix before `:` in a model id, e.g. `openai`, `openai-responses`, `anthropic`, `offline`. */
  readonly name: string;
  /** Model names worth listing in `GET /v1/models` (may be empty when any name is accepted). */
  readonly listedModels: readonly string[];
  /** The name used when a caller gives only the provider; empty for a provider with one unnamed model (`offline`). */
  readonly defaultModel: string;
  /** The model called `modelName` (the part after `provider:`; empty for the default); throws a 400 `BadRequestError` for a name it cannot serve. */
  create(modelName: string): Model;
  /**
   * What the provider sends its vendor that must never come back out of the bridge (its API key): a
   * vendor may quote it, and the runs redact it from everything they write (docs/security.md).
   */
  readonly secrets?: readonly string[];
  /**
   * Asks the vendor which models it serves now (an OpenAI-compatible server's `GET /v1/models`), for
   * `GET /v1/models` to list instead of `defaultModel` and `listedModels`; absent when those are all
   * there is to list. Resolves to at most `limits.maxModels` names; rejects when the vendor does not
   * answer, or answers more than `limits.maxBytes` bytes. The bridge caches the answer
   * (`src/models/model-catalog.ts`).
   */
  servedModels?(limits: ServedModelLimits): Promise<readonly string[]>;
}

/** What one {@link ModelProvider.servedModels} call may cost. */
export interface ServedModelLimits {
  maxModels: number;
  maxBytes: number;
  /** How long the vendor may take, in milliseconds. */
  timeoutMs: number;
  /** Aborted when the bridge stops. */
  signal: AbortSignal;
}
