import type { Config } from './config/index.js';
import type { Model, ModelProvider } from './models/model.js';
import { ModelRegistry } from './models/model-registry.js';
import { splitModelRef } from './protocol/run-request.js';
import { PROVIDER_SETUP, type ProviderOptions, providerOptions } from './provider-options.js';

/** Each provider by name, its module imported only when it is the one asked for. */
const LOADERS = new Map<string, (options: ProviderOptions) => Promise<ModelProvider | undefined>>([
  ['offline', async () => (await import('../adapters/models/offline/offline-provider.js')).createOfflineProvider()],
  [
    'openai',
    async ({ openai }) =>
      openai &&
      (await import('../adapters/models/openai-chat/openai-chat-provider.js')).createOpenAiChatProvider(openai),
  ],
  [
    'openai-responses',
    async ({ openai }) =>
      openai &&
      (await import('../adapters/models/openai-responses/openai-responses-provider.js')).createOpenAiResponsesProvider(
        openai,
      ),
  ],
  [
    'anthropic',
    async ({ anthropic }) =>
      anthropic &&
      (await import('../adapters/models/anthropic/anthropic-provider.js')).createAnthropicProvider(anthropic),
  ],
  [
    'vllm',
    async ({ vllm }) => vllm && (await import('../adapters/models/vllm/vllm-provider.js')).createVllmProvider(vllm),
  ],
]);

/**
 * The model `ref` names (default `RUNBRIDGE_MODEL`), made by its provider alone — `extra`'s of that name
 * when there is one, else the configured one — so a rollout and each of its worker threads load one
 * SDK, not every configured provider's. A reference no provider here answers is refused as
 * {@link ModelRegistry} refuses it, naming every configured provider. `providers` is the one used.
 */
export async function configuredModel(
  config: Config,
  ref: string | undefined,
  extra: readonly ModelProvider[] = [],
): Promise<{ model: Model; providers: ModelProvider[] }> {
  const name = splitModelRef(ref ?? config.defaultModel).provider;
  const provider =
    extra.findLast((candidate) => candidate.name === name) ?? (await LOADERS.get(name)?.(providerOptions(config)));
  const providers =
    provider === undefined
      ? // Only to say which providers there are: this reference names none of them.
        [...(await import('./configured-providers.js')).configuredProviders(config), ...extra]
      : [provider];
  return { model: new ModelRegistry(providers, config.defaultModel, PROVIDER_SETUP).resolve(ref), providers };
}
