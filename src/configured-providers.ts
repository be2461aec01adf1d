import { createAnthropicProvider } from '../adapters/models/anthropic/anthropic-provider.js';
import { createOfflineProvider } from '../adapters/models/offline/offline-provider.js';
import { createOpenAiChatProvider } from '../adapters/models/openai-chat/openai-chat-provider.js';
import { createOpenAiResponsesProvider } from '../adapters/models/openai-responses/openai-responses-provider.js';
import { createVllmProvider } from '../adapters/models/vllm/vllm-provider.js';
import { configuredVendors } from './config/configured-vendors.js';
import { type Config, secretValues } from './config/index.js';
import type { ModelProvider } from './models/model.js';
import type { ModelAnswerCaps } from './protocol/model-answer-caps.js';

/** How to enable each provider {@link configuredProviders} may leave out, for the error that asks for one. */
export const PROVIDER_SETUP: Readonly<Record<string, string>> = {
  openai: 'set OPENAI_API_KEY, or OPENAI_BASE_URL for an OpenAI-compatible server',
  'openai-responses': 'set OPENAI_API_KEY, or OPENAI_BASE_URL for an OpenAI-compatible server',
  anthropic: 'set ANTHROPIC_API_KEY',
  vllm: 'set VLLM_BASE_URL to the root of a vLLM server (e.g. http://gpu-1:8000)',
};

/**
 * The providers the configuration enables: `offline` always, and those of each vendor it configures
 * (`configuredVendors`): `openai` and `openai-responses`, `anthropic`, `vllm` (token-in).
 */
export function configuredProviders(config: Config): ModelProvider[] {
  const providers = [createOfflineProvider()];
  const { openai, anthropic, vllm } = config;
  const answerCaps = modelAnswerCaps(config);
  const vendors = new Set(configuredVendors(config));
  if (vendors.has('openai')) {
    // OpenAI-compatible servers accept any key, but the SDK insists on one. Without OPENAI_MODELS, another
    // server than OpenAI is asked which models it serves (`adapters/models/common/served-models.ts`).
    const options = {
      apiKey: openai.apiKey ?? 'unused',
      baseUrl: openai.baseUrl,
      listedModels: openai.models,
      answerCaps,
    };
    providers.push(createOpenAiChatProvider(options), createOpenAiResponsesProvider(options));
  }
  // A vendor is configured by the setting its `!` reads (configuredVendors).
  if (vendors.has('anthropic')) {
    providers.push(createAnthropicProvider({ apiKey: anthropic.apiKey!, baseUrl: anthropic.baseUrl, answerCaps }));
  }
  if (vendors.has('vllm')) {
    providers.push(
      createVllmProvider({
        baseUrl: vllm.baseUrl!,
        ...(vllm.apiKey === undefined ? {} : { apiKey: vllm.apiKey }),
        reasoningParser: vllm.reasoningParser,
        toolParser: vllm.toolParser,
        chatTemplateKwargs: vllm.chatTemplateKwargs,
        answerCaps,
      }),
    );
  }
  return providers;
}

/** How much of each model answer the bridge reads, as the settings say (docs/security.md). */
export function modelAnswerCaps(config: Config): ModelAnswerCaps {
  return {
    maxEventBytes: config.modelMaxEventBytes,
    maxAnswerBytes: config.modelMaxAnswerBytes,
    maxErrorBytes: config.modelMaxErrorBytes,
  };
}

/**
 * The bridge's own secrets, never to come back out of an episode whatever a model or an environment
 * says (docs/security.md): the settings marked secret, and what `providers` send their vendors.
 */
export function bridgeSecretsOf(config: Config, providers: readonly ModelProvider[]): string[] {
  return [...secretValues(config), ...providers.flatMap((provider) => provider.secrets ?? [])];
}
