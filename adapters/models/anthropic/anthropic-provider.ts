import Anthropic from '@anthropic-ai/sdk';
import type { ModelProvider } from '../../../src/models/model.js';
import { type SdkProviderOptions, sdkClientOptions } from '../common/sdk-client-options.js';
import { AnthropicModel } from './anthropic-model.js';

/** Factory options of {@link createAnthropicProvider}. */
export interface AnthropicProviderOptions extends SdkProviderOptions {
  /** The model used for a bare `anthropic` reference; {@link ANTHROPIC_DEFAULT_MODEL} when absent. */
  defaultModel?: string;
  /** `max_tokens` when a run's sampling sets none (the API requires one); 8192 when absent. */
  defaultMaxTokens?: number;
}

/** The provider name of Claude models: `anthropic:claude-sonnet-5-5`. */
export const ANTHROPIC_PROVIDER_NAME = 'anthropic';

/**
 * The model a bare `anthropic` reference means unless configured otherwise: the newest Sonnet the
 * installed SDK knows. (`claude-sonnet-4-5` is deprecated there, end of life 2026-11-30, and the SDK
 * warns on every request that names it.)
 */
export const ANTHROPIC_DEFAULT_MODEL = 'claude-sonnet-5-5';

/** The output limit sent when a run's sampling sets none. */
export const ANTHROPIC_DEFAULT_MAX_TOKENS = 8192;

/**
 * The `anthropic` provider: Claude over the Messages API with the official SDK. One SDK client
 * serves every model of the provider. The key is passed explicitly, so the SDK never falls back to
 * credentials from the environment or its config files. Any model name is accepted; the API decides.
 */
export function createAnthropicProvider(options: AnthropicProviderOptions): ModelProvider {
  const client = new Anthropic(sdkClientOptions(options));
  const defaultMaxTokens = options.defaultMaxTokens ?? ANTHROPIC_DEFAULT_MAX_TOKENS;
  return {
    name: ANTHROPIC_PROVIDER_NAME,
    listedModels: options.listedModels ?? [],
    secrets: [options.apiKey],
    defaultModel: options.defaultModel ?? ANTHROPIC_DEFAULT_MODEL,
    create: (modelName) =>
      new AnthropicModel({ client, providerName: ANTHROPIC_PROVIDER_NAME, modelName, defaultMaxTokens }),
  };
}
