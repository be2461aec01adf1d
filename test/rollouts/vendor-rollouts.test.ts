import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createOpenAiChatProvider } from '../../adapters/models/openai-chat/openai-chat-provider.js';
import { generateRollouts } from '../../src/rollouts/generate-rollouts.js';
import { type FakeVendorServer, startFakeVendorServer } from '../support/fake-vendor-server.js';
import { type RolloutRig, readRecords, startRolloutRig } from './rollout-rig.js';

const ROUTE = 'POST /v1/chat/completions';

describe('rollouts through the real openai adapter against a fake vLLM server', () => {
  let rig: RolloutRig;
  let vendor: FakeVendorServer;

  beforeAll(async () => {
    rig = await startRolloutRig();
    vendor = await startFakeVendorServer();
  });
  afterAll(async () => {
    await vendor.close();
    await rig.close();
  });

  it('keeps the token ids and logprobs the server returns, sends each rollout its seed, and records a failed call as an error', async () => {
    const stream = { kind: 'stream', fixture: 'openai-chat/vllm-reasoning.sse' } as const;
    // Requests in order: the first episode's call streams, the second's is refused, the third streams.
    vendor.reply(
      ROUTE,
      stream,
      { kind: 'json', status: 503, body: { error: { message: 'The engine is overloaded.' } } },
      stream,
    );
    const model = createOpenAiChatProvider({ apiKey: 'test', baseUrl: `${vendor.url}/v1`, maxRetries: 0 }).create(
      'Qwen/Qwen3-8B',
    );
    const out = rig.path('vllm.jsonl');
    await generateRollouts({
      ors: rig.ors,
      model,
      env: 'arith',
      tasks: '0:3',
      concurrency: 1,
      retries: 0,
      sampling: { temperature: 0.6, extra_body: { return_token_ids: true, logprobs: true } },
      out,
    });

    const records = readRecords(out);
    expect(records.map((record) => [record.task.index, record.status])).toEqual([
      [0, 'completed'],
      [1, 'failed'],
      [2, 'completed'],
    ]);
    const [first, failed] = records;
    expect(first).toMatchObject({ model: 'openai:Qwen/Qwen3-8B', stop_reason: 'no_tool_calls' });
    const step = first!.steps[0]!;
    expect(step.prompt_token_ids).toEqual([151644, 872, 198, 3838, 374, 220, 17, 10, 17, 30, 151645]);
    expect(step.token_ids!.slice(0, 3)).toEqual([11613, 5519, 1378]);
    expect(step.logprobs!.slice(0, 2)).toEqual([-0.0123, -0.2001]);
    expect(step.token_ids).toHaveLength(step.logprobs!.length);
    expect(step.logprobs_raw).toEqual(
      expect.arrayContaining([expect.objectContaining({ token: 'Two', logprob: -0.0123 })]),
    );
    expect(first!.messages.at(-1)).toMatchObject({
      role: 'assistant',
      reasoning_content: expect.stringMatching(/^Two plus two/),
    });
    expect(failed).toMatchObject({ stop_reason: 'error', error: { code: 'model_unavailable' } });
    expect(failed!.error!.message).toContain('503');

    const bodies = vendor.bodiesOf(ROUTE) as Array<Record<string, unknown>>;
    expect(bodies).toHaveLength(3);
    expect(bodies.map((body) => body.seed)).toEqual(records.map((record) => record.sampling.seed));
    for (const body of bodies) expect(body).toMatchObject({ temperature: 0.6, return_token_ids: true, logprobs: true });
    expect(rig.server.activeSessionIds()).toEqual([]);
  });

  it("writes no secret it is told to redact, though the vendor's 401 quotes it", async () => {
    const key = 'sk-OPERATOR-5e7a9c1b3d5f7a9c1e3b5d7f';
    vendor.reply(ROUTE, {
      kind: 'json',
      status: 401,
      body: { error: { message: `Incorrect API key provided: Bearer ${key}`, type: 'invalid_request_error' } },
    });
    const model = createOpenAiChatProvider({ apiKey: key, baseUrl: `${vendor.url}/v1`, maxRetries: 0 }).create('m');
    const out = rig.path('refused.jsonl');
    await generateRollouts({ ors: rig.ors, model, redact: [key], env: 'arith', tasks: '0:1', retries: 0, out });
    const [record] = readRecords(out);
    expect(record).toMatchObject({ status: 'failed', error: { code: 'model_auth' } });
    expect(record!.error!.message).toContain('Bearer [redacted]');
    expect(readFileSync(out, 'utf8')).not.toContain(key);
  });
});
