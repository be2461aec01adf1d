import type OpenAI from 'openai';
import type { Model, ModelPart, ModelRequest } from '../../../src/models/model.js';
import { openAiErrorToModelError } from '../common/openai-error-to-model-error.js';
import { streamModelParts } from '../common/stream-model-parts.js';
import type { VendorInfo } from '../common/vendor-failure.js';
import { type MaxTokensParam, toChatCompletionParams } from './chat-message-converter.js';
import { ChatStreamMapper } from './chat-stream-mapper.js';

/** What an {@link OpenAiChatModel} needs; the provider builds it. */
export interface OpenAiChatModelOptions {
  /** The provider's SDK client, shared by its models. */
  client: OpenAI;
  /** The provider's name, the part of the model id before `:`. */
  providerName: string;
  /** The vendor's model name, sent as `model`. */
  modelName: string;
  /** The body key of the token limit. */
  maxTokensParam: MaxTokensParam;
  /** Names the server in error messages. */
  vendor: VendorInfo;
}

/**
 * One Chat Completions model (OpenAI, or any OpenAI-compatible server) behind the `Model` contract.
 * Each `stream` call is one streaming request; the SDK retries refused or failed connections and
 * 408/409/429/5xx answers up to the client's `maxRetries`, and nothing here retries on top of it.
 */
export class OpenAiChatModel implements Model {
  /** `provider:name`, e.g. `openai:gpt-4.1-mini`. */
  readonly id: string;
  readonly #options: OpenAiChatModelOptions;

  /** A model over `options.client`; creating one sends nothing. */
  constructor(options: OpenAiChatModelOptions) {
    this.#options = options;
    this.id = `${options.providerName}:${options.modelName}`;
  }

  /** Streams one turn; see `Model.stream` for the parts and the errors. */
  stream(request: ModelRequest): AsyncIterable<ModelPart> {
    const { client, modelName, maxTokensParam, vendor } = this.#options;
    return streamModelParts({
      signal: request.signal,
      open: (signal) =>
        client.chat.completions.create(toChatCompletionParams(modelName, request, { maxTokensParam, vendor }), {
          signal,
        }),
      mapper: new ChatStreamMapper(vendor),
      toModelError: (error, phase) => openAiErrorToModelError(error, phase, vendor),
    });
  }
}
