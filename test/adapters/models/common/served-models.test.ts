import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createOpenAiChatProvider } from '../../../../adapters/models/openai-chat/openai-chat-provider.js';
import { createOpenAiResponsesProvider } from '../../../../adapters/models/openai-responses/openai-responses-provider.js';
import type { ServedModelLimits } from '../../../../src/models/model.js';
import { type FakeVendorServer, startFakeVendorServer } from '../../../support/fake-vendor-server.js';

const LIMITS: ServedModelLimits = {
  maxModels: 3,
  maxBytes: 2048,
  timeoutMs: 200,
  signal: new AbortController().signal,
};
const list = (...ids: string[]) => ({
  object: 'list',
  data: ids.map((id) => ({ id, object: 'model', owned_by: 'x' })),
});

/** What an OpenAI-compatible server's `GET /v1/models` gives the `openai` providers, through the SDK, within bounds. */
describe('the models an OpenAI-compatible server serves', () => {
  let vendor: FakeVendorServer;
  beforeAll(async () => {
    vendor = await startFakeVendorServer();
  });
  afterAll(() => vendor.close());

  const served = () => createOpenAiChatProvider({ apiKey: 'key-1', baseUrl: `${vendor.url}/v1` }).servedModels!;

  it('are the ids of its list, asked with the key, each once, at most maxModels of them', async () => {
    vendor.reply('GET /v1/models', { kind: 'json', status: 200, body: list('a', 'b', 'a', 'c', 'd') });
    expect(await served()(LIMITS)).toEqual(['a', 'b', 'c']);
    expect(vendor.requests.at(-1)?.headers.authorization).toBe('Bearer key-1');
  });

  it('are not read past maxBytes', async () => {
    const many = Array.from({ length: 200 }, (_, index) => `model-${index}`);
    vendor.reply('GET /v1/models', { kind: 'json', status: 200, body: list(...many) });
    await expect(served()(LIMITS)).rejects.toThrow(
      `GET ${vendor.url}/v1/models gave no list of models: the answer is larger than 2048 bytes (RUNBRIDGE_MODEL_LIST_MAX_BYTES)`,
    );
  });

  it('are refused when the answer is no list of models, or comes too late', async () => {
    vendor.reply('GET /v1/models', { kind: 'json', status: 200, body: { models: ['a'] } });
    await expect(served()(LIMITS)).rejects.toThrow(/the answer is not an OpenAI list of models/);
    vendor.reply('GET /v1/models', { kind: 'hang' });
    await expect(served()(LIMITS)).rejects.toThrow(/gave no list of models: Request timed out/);
  });

  it('are asked of no server whose models were named, nor of OpenAI itself', () => {
    expect(createOpenAiChatProvider({ apiKey: 'k' }).servedModels).toBeUndefined();
    expect(
      createOpenAiChatProvider({ apiKey: 'k', baseUrl: 'https://api.openai.com/v1' }).servedModels,
    ).toBeUndefined();
    expect(
      createOpenAiChatProvider({ apiKey: 'k', baseUrl: `${vendor.url}/v1`, listedModels: ['mine'] }).servedModels,
    ).toBeUndefined();
    expect(createOpenAiResponsesProvider({ apiKey: 'k', baseUrl: `${vendor.url}/v1` }).servedModels).toBeDefined();
  });
});
