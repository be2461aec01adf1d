import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/index.js';
import { type Runbridge, startRunbridge } from '../../src/main.js';
import { silentLogger } from '../../src/telemetry/logger.js';
import { eventually } from '../support/eventually.js';
import { type FakeVendorServer, startFakeVendorServer } from '../support/fake-vendor-server.js';

interface ModelList {
  data: Array<{ id: string; owned_by: string }>;
  default: string;
  unreachable: Array<{ provider: string; error: string }>;
}

const served = (...ids: string[]) => ({
  kind: 'json' as const,
  status: 200,
  body: { object: 'list', data: ids.map((id) => ({ id, object: 'model', created: 0, owned_by: 'vllm' })) },
});

/** `GET /v1/models` with `OPENAI_BASE_URL` at an OpenAI-compatible server (docs/models.md, "What is listed"). */
describe('GET /v1/models of a bridge on an OpenAI-compatible server', () => {
  let vendor: FakeVendorServer;
  let bridge: Runbridge | undefined;

  beforeAll(async () => {
    vendor = await startFakeVendorServer();
  });
  afterEach(async () => {
    await bridge?.shutdown();
    bridge = undefined;
  });
  afterAll(() => vendor.close());

  const start = async (env: Record<string, string> = {}) => {
    bridge = await startRunbridge({
      config: loadConfig({ PORT: '0', HOST: '127.0.0.1', OPENAI_BASE_URL: `${vendor.url}/v1`, ...env }),
      logger: silentLogger,
    });
    return bridge;
  };
  const models = async () => (await (await fetch(`${bridge!.url}/v1/models`)).json()) as ModelList;
  const listRequests = () => vendor.requests.filter((request) => request.path === '/v1/models').length;

  it('lists what the server serves, not gpt-4.1-mini, and names the default model', async () => {
    vendor.reply('GET /v1/models', served('Qwen/Qwen3-8B', 'llama-3.2-1b'));
    await start({ RUNBRIDGE_MODEL: 'openai:Qwen/Qwen3-8B' });
    const list = await models();
    expect(list.data.map((model) => model.id)).toEqual([
      'offline',
      'openai:Qwen/Qwen3-8B',
      'openai:llama-3.2-1b',
      'openai-responses:Qwen/Qwen3-8B',
      'openai-responses:llama-3.2-1b',
    ]);
    expect(list.default).toBe('openai:Qwen/Qwen3-8B');
    expect(list.unreachable).toEqual([]);
  });

  it('asks the server once for many requests, the first one at start-up', async () => {
    vendor.reply('GET /v1/models', served('one'));
    const before = listRequests();
    await start();
    // Start-up asks (each of the two providers once) without waiting for the answer.
    await eventually(() => listRequests() - before === 2, 'the two providers asking for the list');
    for (let request = 0; request < 5; request++) {
      expect((await models()).data.map((model) => model.id)).toContain('openai:one');
    }
    expect(listRequests() - before).toBe(2);
  });

  it('lists the names OPENAI_MODELS gives instead, and never asks the server', async () => {
    const before = listRequests();
    await start({ OPENAI_MODELS: 'mine-a, mine-b' });
    expect((await models()).data.map((model) => model.id)).toEqual([
      'offline',
      'openai:gpt-4.1-mini',
      'openai:mine-a',
      'openai:mine-b',
      'openai-responses:gpt-4.1-mini',
      'openai-responses:mine-a',
      'openai-responses:mine-b',
    ]);
    expect(listRequests()).toBe(before);
  });

  it('falls back to the default model when the server fails, saying which server and why', async () => {
    vendor.reply('GET /v1/models', { kind: 'json', status: 500, body: { error: { message: 'model list broke' } } });
    await start();
    const list = await models();
    expect(list.data.map((model) => model.id)).toEqual([
      'offline',
      'openai:gpt-4.1-mini',
      'openai-responses:gpt-4.1-mini',
    ]);
    // OPENAI_BASE_URL configures openai, so it serves the requests that name no model.
    expect(list.default).toBe('openai:gpt-4.1-mini');
    expect(list.unreachable).toEqual([
      { provider: 'openai', error: expect.stringMatching(`^GET ${vendor.url}/v1/models gave no list of models: 500 `) },
      { provider: 'openai-responses', error: expect.stringContaining('model list broke') },
    ]);
  });

  it('starts and stops without waiting for a server that never answers', async () => {
    vendor.reply('GET /v1/models', { kind: 'hang' });
    const before = vendor.requests.length;
    await start();
    await vendor.waitForRequests(before + 2);
    expect((await fetch(`${bridge!.url}/health`)).status).toBe(200);
  });
});
