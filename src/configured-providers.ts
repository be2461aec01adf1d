import { createAnthropicProvider } from '../adapters/models/anthropic/anthropic-provider.js';
import { createOfflineProvider } from '../adapters/models/offline/offline-provider.js';
import { createOpenAiChatProvider } from '../adapters/models/openai-chat/openai-chat-provider.js';
import { createOpenAiResponsesProvider } from '../adapters/models/openai-responses/openai-responses-provider.js';
import { createVllmProvider } from '../adapters/models/vllm/vllm-provider.js';
import type { Config } from './config/index.js';
import type { ModelProvider } from './models/model.js';
import { providerOptions } from './provider-options.js';

/**
 * The providers the configuration enables: `offline` always, and those `providerOptions` gives options
 * of. A rollout, which plays one model, loads only its provider (`configuredModel`).
 */
export function configuredProviders(config: Config): ModelProvider[] {
  const { openai, anthropic, vllm } = providerOptions(config);
  return [
    createOfflineProvider(),
    ...(openai === undefined ? [] : [createOpenAiChatProvider(openai), createOpenAiResponsesProvider(openai)]),
    ...(anthropic === undefined ? [] : [createAnthropicProvider(anthropic)]),
    ...(vllm === undefined ? [] : [createVllmProvider(vllm)]),
  ];
}
