import OpenAI from 'openai';
import type { ModelProvider } from '../../../src/models/model.js';
import { type SdkProviderOptions, sdkClientOptions } from '../common/sdk-client-options.js';
import { servedModelsOf } from '../common/served-models.js';
import { OpenAiResponsesModel } from './openai-responses-model.js';

/** Factory options of {@link createOpenAiResponsesProvider}. */
export interface OpenAiResponsesProviderOptions extends SdkProviderOptions {
  /** The model used for a bare `openai-responses` reference; `gpt-4.1-mini` when absent. */
  defaultModel?: string;
}

/** The provider name of Responses API models: `openai-responses:gpt-4.1-mini`. */
export const OPENAI_RESPONSES_PROVIDER_NAME = 'openai-responses';

/** The model a bare `openai-responses` reference means unless configured otherwise. */
export const OPENAI_RESPONSES_DEFAULT_MODEL = 'gpt-4.1-mini';

/**
 * The `openai-responses` provider: OpenAI's Responses API over the official SDK — the API that
 * streams reasoning summaries and takes reasoning items back. One SDK client serves every model of
 * the provider. Any model name is accepted; the API decides. Another server than OpenAI is asked which
 * models it serves, as for `openai`.
 */
export function createOpenAiResponsesProvider(options: OpenAiResponsesProviderOptions): ModelProvider {
  const client = new OpenAI(sdkClientOptions(options));
  return {
    name: OPENAI_RESPONSES_PROVIDER_NAME,
    listedModels: options.listedModels ?? [],
    secrets: [options.apiKey],
    defaultModel: options.defaultModel ?? OPENAI_RESPONSES_DEFAULT_MODEL,
    create: (modelName) =>
      new OpenAiResponsesModel({ client, providerName: OPENAI_RESPONSES_PROVIDER_NAME, modelName }),
    servedModels: servedModelsOf(client, options),
  };
}
