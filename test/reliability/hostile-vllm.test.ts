import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunEvent } from '../../src/protocol/run-events.js';
import { assertEventOrder } from '../../src/protocol/verify-event-order.js';
import type { FakeCompletion, FakeVllmServer } from '../support/fake-vllm/fake-vllm-server.js';
import { startFakeVllmServer } from '../support/fake-vllm/fake-vllm-server.js';
import { startTestBridge, type TestBridge } from '../support/start-test-bridge.js';

/**
 * A hostile vLLM server gets what any model server gets (docs/security.md, "What a model server can
 * send"): its answers go through the same capped transport, its token ids count against the turn as
 * they stream, and the key the bridge sends it never comes back out.
 */

const MB = 1024 * 1024;
const KEY = 'vllm-key-OPERATOR-0123456789abcdef';
const TASK = { spec: { question: 'What is 17 + 25?', answer: 42 } };

let fake: FakeVllmServer;
let bridge: TestBridge;
let completion: FakeCompletion = { text: 'Done.' };

beforeAll(async () => {
  fake = await startFakeVllmServer({ policy: () => completion, apiKey: KEY });
  // An event cap below the default (8 MiB), to see the provider read with the bridge's settings.
  bridge = await startTestBridge({
    VLLM_BASE_URL: fake.url,
    VLLM_API_KEY: KEY,
    RUNBRIDGE_MODEL_MAX_EVENT_BYTES: String(MB),
  });
});
afterAll(async () => {
  await bridge.shutdown();
  await fake.close();
});

async function failureOf(runId: string): Promise<{ code: string; error: string; events: RunEvent[] }> {
  const events = await bridge.readEvents(runId);
  assertEventOrder(events);
  const last = events.at(-1);
  if (last?.event !== 'run.failed') throw new Error(`the run did not fail: ${JSON.stringify(last)}`);
  return { code: last.code, error: last.error, events };
}

describe('a hostile vLLM server', () => {
  it('sending a line that never ends is read only up to the event cap, and the bridge answers meanwhile', async () => {
    completion = { text: 'Let me think about it at length.', flood: { kind: 'line', bytes: 20 * MB } };
    const runId = await bridge.startRun({ env: 'arith', task: TASK, model: 'vllm:Qwen/Qwen3-8B' });
    expect((await bridge.fetch('/health')).status).toBe(200);
    const { code, error } = await failureOf(runId);
    expect(code).toBe('model_error');
    expect(error).toContain('RUNBRIDGE_MODEL_MAX_EVENT_BYTES');
    expect(fake.floods.at(-1)).toBeLessThan(4 * MB);
  });

  it('streaming token ids past max_tokens, without text, is refused as it streams', async () => {
    completion = { text: 'Let me think.', flood: { kind: 'ids', bytes: 64 * MB } };
    const runId = await bridge.startRun({
      env: 'arith',
      task: TASK,
      model: 'vllm:Qwen/Qwen3-8B',
      sampling: { max_tokens: 512 },
    });
    const { code, error } = await failureOf(runId);
    expect(code).toBe('model_error');
    expect(error).toContain('max_tokens 512');
    expect(fake.floods.at(-1)).toBeLessThan(16 * MB);
  });

  it('quoting the key the bridge sent it reaches no client', async () => {
    completion = { text: 'Done.' };
    fake.failNext('/v1/completions', 401, `Incorrect API key provided: Bearer ${KEY}.`);
    const runId = await bridge.startRun({ env: 'arith', task: TASK, model: 'vllm:Qwen/Qwen3-8B' });
    const { code, events } = await failureOf(runId);
    expect(code).toBe('model_auth');
    expect(JSON.stringify(events)).not.toContain(KEY);
    expect(JSON.stringify(events)).toContain('Incorrect API key provided');
    expect(await (await bridge.fetch(`/v1/runs/${runId}`)).text()).not.toContain(KEY);
  });
});
