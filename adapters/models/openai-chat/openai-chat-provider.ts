import OpenAI from 'openai';
import type { ModelProvider } from '../../../src/models/model.js';
import { OPENAI_VENDOR } from '../common/openai-error-to-model-error.js';
import { type SdkProviderOptions, sdkClientOptions } from '../common/sdk-client-options.js';
import { isOpenAiHost, servedModelsOf } from '../common/served-models.js';
import type { VendorInfo } from '../common/vendor-failure.js';
import type { MaxTokensParam } from './chat-message-converter.js';
import { OpenAiChatModel } from './openai-chat-model.js';

/** Factory options of {@link createOpenAiChatProvider}. */
export interface OpenAiChatProviderOptions extends SdkProviderOptions {
  /** The model used for a bare `openai` reference; `gpt-4.1-mini` when absent. */
  defaultModel?: string;
  /**
   * The body key of the token limit; `max_completion_tokens` for OpenAI itself and `max_tokens` for a
   * server at another `baseUrl` when absent.
   */
  maxTokensParam?: MaxTokensParam;
}

/** The provider name of Chat Completions models: `openai:gpt-4.1-mini`. */
export const OPENAI_CHAT_PROVIDER_NAME = 'openai';

/** The model a bare `openai` reference means unless configured otherwise. */
export const OPENAI_CHAT_DEFAULT_MODEL = 'gpt-4.1-mini';

/**
 * The `openai` provider: Chat Completions over the official SDK, against OpenAI or any
 * OpenAI-compatible server at `baseUrl`. One SDK client serves every model of the provider, so
 * connections are pooled across runs. Any model name is accepted; the server decides. Another server
 * than OpenAI is asked which models it serves, for `GET /v1/models`, unless `listedModels` names them.
 */
export function createOpenAiChatProvider(options: OpenAiChatProviderOptions): ModelProvider {
  const client = new OpenAI(sdkClientOptions(options));
  const isOpenAi = options.baseUrl === undefined || isOpenAiHost(options.baseUrl);
  const vendor: VendorInfo = isOpenAi
    ? OPENAI_VENDOR
    : { name: `The OpenAI-compatible server at ${options.baseUrl}`, apiKeyVariable: OPENAI_VENDOR.apiKeyVariable };
  const maxTokensParam = options.maxTokensParam ?? (isOpenAi ? 'max_completion_tokens' : 'max_tokens');
  return {
    name: OPENAI_CHAT_PROVIDER_NAME,
    listedModels: options.listedModels ?? [],
    secrets: [options.apiKey],
    defaultModel: options.defaultModel ?? OPENAI_CHAT_DEFAULT_MODEL,
    create: (modelName) =>
      new OpenAiChatModel({ client, providerName: OPENAI_CHAT_PROVIDER_NAME, modelName, maxTokensParam, vendor }),
    servedModels: servedModelsOf(client, options),
  };
}
