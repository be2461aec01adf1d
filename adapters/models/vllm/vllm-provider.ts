import type { Message } from '../../../src/models/conversation.js';
import type { ModelProvider } from '../../../src/models/model.js';
import type { SdkProviderOptions } from '../common/sdk-client-options.js';
import type { VendorInfo } from '../common/vendor-failure.js';
import type { CarriedTurn } from './carried-turn.js';
import { TemplateRenderer } from './template-renderer.js';
import { VllmClient } from './vllm-client.js';
import { VllmModel, type VllmModelSettings } from './vllm-model.js';

/** The provider name of vLLM's token-in models: `vllm:Qwen/Qwen3-8B`. */
export const VLLM_PROVIDER_NAME = 'vllm';

/** Factory options of {@link createVllmProvider}. */
export interface VllmProviderOptions extends Omit<SdkProviderOptions, 'apiKey' | 'baseUrl' | 'defaultModel'> {
  /** The server's root, e.g. `http://gpu-1:8000` (without `/v1`). */
  baseUrl: string;
  /** The key the server was started with (`--api-key`); none when absent. */
  apiKey?: string;
  /** Parsers and template kwargs of every model, unless `models` says otherwise; `qwen3`, `hermes` and none when absent. */
  reasoningParser?: VllmModelSettings['reasoningParser'];
  toolParser?: VllmModelSettings['toolParser'];
  chatTemplateKwargs?: Record<string, unknown>;
  /** Settings of particular models, by the name after `vllm:`. */
  models?: Readonly<Record<string, Partial<VllmModelSettings>>>;
}

/**
 * The `vllm` provider: token-in, token-out generation against a vLLM server (`VllmModel`). Any model
 * name is accepted and sent as `model`; a bare `vllm` sends none, so the server uses the one it
 * serves. One client, one renderer (with its caches) and one table of conversations' last turns
 * serve every model of the provider.
 */
export function createVllmProvider(options: VllmProviderOptions): ModelProvider {
  const root = options.baseUrl.replace(/\/+$/, '');
  const vendor: VendorInfo = { name: `The vLLM server at ${root}`, apiKeyVariable: 'VLLM_API_KEY' };
  // The SDK insists on a key; a server started without --api-key takes any.
  const client = new VllmClient(root, { ...options, apiKey: options.apiKey ?? 'unused' }, vendor);
  const shared = {
    client,
    renderer: new TemplateRenderer(client),
    turns: new WeakMap<readonly Message[], CarriedTurn>(),
    vendor,
  };
  const defaults: VllmModelSettings = {
    reasoningParser: options.reasoningParser ?? 'qwen3',
    toolParser: options.toolParser ?? 'hermes',
    chatTemplateKwargs: options.chatTemplateKwargs ?? {},
  };
  return {
    name: VLLM_PROVIDER_NAME,
    listedModels: options.listedModels ?? [],
    secrets: options.apiKey === undefined ? [] : [options.apiKey],
    defaultModel: '',
    create: (modelName) =>
      new VllmModel(VLLM_PROVIDER_NAME, modelName, shared, { ...defaults, ...options.models?.[modelName] }),
  };
}
