import type { AnthropicProviderOptions } from '../adapters/models/anthropic/anthropic-provider.js';
import type { OpenAiChatProviderOptions } from '../adapters/models/openai-chat/openai-chat-provider.js';
import type { VllmProviderOptions } from '../adapters/models/vllm/vllm-provider.js';
import { configuredVendors } from './config/configured-vendors.js';
import { type Config, modelAnswerCaps } from './config/index.js';

/** How to enable each provider the configuration may leave out, for the error that asks for one. */
export const PROVIDER_SETUP: Readonly<Record<string, string>> = {
  openai: 'set OPENAI_API_KEY, or OPENAI_BASE_URL for an OpenAI-compatible server',
  'openai-responses': 'set OPENAI_API_KEY, or OPENAI_BASE_URL for an OpenAI-compatible server',
  anthropic: 'set ANTHROPIC_API_KEY',
  vllm: 'set VLLM_BASE_URL to the root of a vLLM server (e.g. http://gpu-1:8000)',
};

/** What the configuration makes each provider with; a provider it does not enable is absent. */
export interface ProviderOptions {
  /** `openai` and `openai-responses`. */
  openai?: OpenAiChatProviderOptions;
  anthropic?: AnthropicProviderOptions;
  vllm?: VllmProviderOptions;
}

/**
 * The options of the providers the configuration enables (`offline` needs none): `openai` and
 * `openai-responses` with `OPENAI_API_KEY` or `OPENAI_BASE_URL` (a local vLLM or Ollama usually needs
 * no key); `anthropic` with `ANTHROPIC_API_KEY`; `vllm` (token-in) with `VLLM_BASE_URL`.
 */
export function providerOptions(config: Config): ProviderOptions {
  const { openai, anthropic, vllm } = config;
  const answerCaps = modelAnswerCaps(config);
  const vendors = new Set(configuredVendors(config));
  return {
    // OpenAI-compatible servers accept any key, but the SDK insists on one. Without OPENAI_MODELS, another
    // server than OpenAI is asked which models it serves (`adapters/models/common/served-models.ts`).
    ...(!vendors.has('openai')
      ? {}
      : {
          openai: {
            apiKey: openai.apiKey ?? 'unused',
            baseUrl: openai.baseUrl,
            listedModels: openai.models,
            answerCaps,
          },
        }),
    ...(!vendors.has('anthropic')
      ? {}
      : { anthropic: { apiKey: anthropic.apiKey!, baseUrl: anthropic.baseUrl, answerCaps } }),
    ...(!vendors.has('vllm')
      ? {}
      : {
          vllm: {
            baseUrl: vllm.baseUrl!,
            ...(vllm.apiKey === undefined ? {} : { apiKey: vllm.apiKey }),
            reasoningParser: vllm.reasoningParser,
            toolParser: vllm.toolParser,
            chatTemplateKwargs: vllm.chatTemplateKwargs,
            answerCaps,
          },
        }),
  };
}
