import { createOpenAiChatProvider } from '../../adapters/models/openai-chat/openai-chat-provider.js';
import { OrsClient } from '../../src/ors/client/ors-client.js';
import type { RolloutWorkerRuntime } from '../../src/rollouts/workers/rollout-worker-setup.js';

/** What the every-core benchmark hands each rollout worker thread. */
export interface BenchWorkerData {
  modelBaseUrl: string;
  orsUrl: string;
  modelName: string;
}

/** A rollout worker of the benchmark: the `openai` provider on the fake model, and the fake ORS server, as the batch's own thread has them. */
export async function setUpRolloutWorker(data: unknown): Promise<RolloutWorkerRuntime> {
  const { modelBaseUrl, orsUrl, modelName } = data as BenchWorkerData;
  return {
    model: createOpenAiChatProvider({ apiKey: 'bench', baseUrl: modelBaseUrl }).create(modelName),
    ors: new OrsClient({ baseUrl: orsUrl }),
  };
}
