import OpenAI from 'openai';
import type { ModelProvider } from '../../../src/models/model.js';
import { OpenAiResponsesModel } from './openai-responses-model.js';

/** Factory options of {@link createOpenAiResponsesProvider}. */
export interface OpenAiResponsesProviderOptions {
  /** The key sent to OpenAI with every request. */
  apiKey: string;
  /** Another endpoint for the Responses API (a proxy, a compatible server); OpenAI when absent. */
  baseUrl?: string;
  /** Retries of the SDK for connection failures and 408/409/429/5xx answers; the SDK's default (2) when absent. */
  maxRetries?: number;
  /** Model names for `GET /v1/models` besides the default one. */
  listedModels?: readonly string[];
  /** The `fetch` the SDK uses (tests, proxies); the global one when absent. */
  fetch?: typeof globalThis.fetch;
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
 * the provider. Any model name is accepted; the API decides.
 */
export function createOpenAiResponsesProvider(options: OpenAiResponsesProviderOptions): ModelProvider {
  const client = new OpenAI({
    apiKey: options.apiKey,
    ...(options.baseUrl === undefined ? {} : { baseURL: options.baseUrl }),
    ...(options.maxRetries === undefined ? {} : { maxRetries: options.maxRetries }),
    ...(options.fetch === undefined ? {} : { fetch: options.fetch }),
  });
  return {
    name: OPENAI_RESPONSES_PROVIDER_NAME,
    listedModels: options.listedModels ?? [],
    defaultModel: options.defaultModel ?? OPENAI_RESPONSES_DEFAULT_MODEL,
    create: (modelName) => new OpenAiResponsesModel({ client, providerName: OPENAI_RESPONSES_PROVIDER_NAME, modelName }),
  };
}
