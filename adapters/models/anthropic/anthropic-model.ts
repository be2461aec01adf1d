import type Anthropic from '@anthropic-ai/sdk';
import type { Model, ModelPart, ModelRequest } from '../../../src/models/model.js';
import { streamModelParts } from '../common/stream-model-parts.js';
import { anthropicErrorToModelError } from './anthropic-error-to-model-error.js';
import { toAnthropicParams } from './anthropic-message-converter.js';
import { AnthropicStreamMapper } from './anthropic-stream-mapper.js';

/** What an {@link AnthropicModel} needs; the provider builds it. */
export interface AnthropicModelOptions {
  /** The provider's SDK client, shared by its models. */
  client: Anthropic;
  /** The provider's name, the part of the model id before `:`. */
  providerName: string;
  /** The vendor's model name, sent as `model`. */
  modelName: string;
  /** `max_tokens` when the sampling sets none. */
  defaultMaxTokens: number;
}

/**
 * One Claude model behind the `Model` contract, over the Messages API. Each `stream` call is one
 * streaming request; the SDK retries connection failures and 408/409/429/5xx (529 overloaded
 * included) up to the client's `maxRetries`, and nothing here retries on top of it.
 */
export class AnthropicModel implements Model {
  /** `provider:name`, e.g. `anthropic:claude-sonnet-5-5`. */
  readonly id: string;
  readonly #options: AnthropicModelOptions;

  /** A model over `options.client`; creating one sends nothing. */
  constructor(options: AnthropicModelOptions) {
    this.#options = options;
    this.id = `${options.providerName}:${options.modelName}`;
  }

  /** Streams one turn; see `Model.stream` for the parts and the errors. */
  stream(request: ModelRequest): AsyncIterable<ModelPart> {
    const { client, modelName, defaultMaxTokens } = this.#options;
    return streamModelParts({
      signal: request.signal,
      open: (signal) => client.messages.create(toAnthropicParams(modelName, request, { defaultMaxTokens }), { signal }),
      mapper: new AnthropicStreamMapper(),
      toModelError: anthropicErrorToModelError,
    });
  }
}
