import type OpenAI from 'openai';
import type { Model, ModelPart, ModelRequest } from '../../../src/models/model.js';
import { openAiErrorToModelError } from '../common/openai-error-to-model-error.js';
import { streamModelParts } from '../common/stream-model-parts.js';
import { toResponsesParams } from './responses-message-converter.js';
import { ResponsesStreamMapper } from './responses-stream-mapper.js';

/** What an {@link OpenAiResponsesModel} needs; the provider builds it. */
export interface OpenAiResponsesModelOptions {
  /** The provider's SDK client, shared by its models. */
  client: OpenAI;
  /** The provider's name, the part of the model id before `:`. */
  providerName: string;
  /** The vendor's model name, sent as `model`. */
  modelName: string;
}

/**
 * One OpenAI model behind the `Model` contract, over the Responses API. Each `stream` call is one
 * streaming request carrying the whole conversation (no `previous_response_id`); the SDK retries
 * connection failures and 408/409/429/5xx up to the client's `maxRetries`, and nothing here
 * retries on top of it.
 */
export class OpenAiResponsesModel implements Model {
  /** `provider:name`, e.g. `openai-responses:gpt-4.1-mini`. */
  readonly id: string;
  readonly #options: OpenAiResponsesModelOptions;

  /** A model over `options.client`; creating one sends nothing. */
  constructor(options: OpenAiResponsesModelOptions) {
    this.#options = options;
    this.id = `${options.providerName}:${options.modelName}`;
  }

  /** Streams one turn; see `Model.stream` for the parts and the errors. */
  stream(request: ModelRequest): AsyncIterable<ModelPart> {
    const { client, modelName } = this.#options;
    return streamModelParts({
      signal: request.signal,
      open: (signal) => client.responses.create(toResponsesParams(modelName, request), { signal }),
      mapper: new ResponsesStreamMapper(),
      toModelError: (error, phase) => openAiErrorToModelError(error, phase),
    });
  }
}
