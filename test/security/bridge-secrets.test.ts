import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { z } from 'zod';
import { builtinEnvironments } from '../../adapters/environments/builtin-environments.js';
import { createVllmProvider } from '../../adapters/models/vllm/vllm-provider.js';
import { defineEnvironment, defineTool, taskList } from '../../src/ors/environment.js';
import type { RunEvent } from '../../src/protocol/run-events.js';
import { assertEventOrder } from '../../src/protocol/verify-event-order.js';
import { recordingProvider, type Sent, textOf } from '../hitl/hitl-support.js';
import { type CapturedLog, captureLog } from '../support/captured-log.js';
import { type FakeVendorServer, startFakeVendorServer } from '../support/fake-vendor-server.js';
import { serveLoopbackInTest } from '../support/loopback-server.js';
import { startTestBridge, type TestBridge } from '../support/start-test-bridge.js';
import { startWebhookReceiver, type WebhookReceiver } from '../support/webhook-receiver.js';

/**
 * The bridge's own secrets — every provider key, the API keys, the webhook secret, the metrics token —
 * never come back out of it (docs/security.md, "Secrets are never echoed"), whatever a model server or
 * an environment says: a vendor's 401 that quotes the `Authorization` it received, a stream that spells
 * a key out across many chunks, an environment that prints them. Not in the events, the snapshot, the
 * list, the chat completion's 502, a webhook, the bridge's log or the SDKs' console — nor in the
 * conversation the model is shown.
 */

const OPENAI_KEY = 'sk-OPERATOR-7d1f0c9b2e4a4c6f8a1b3d5e7f901234';
const ANTHROPIC_KEY = 'sk-ant-api03-OPERATOR-5b8e2c7d9f1a3c5e7b9d1f3a5c7e9b1d';
const KEY_A = 'rb-key-a-0f1e2d3c4b5a69788796a5b4c3d2e1f0';
const KEY_B = 'rb-key-b-9a8b7c6d5e4f30211203f4e5d6c7b8a9';
const WEBHOOK_SECRET = `whsec_${Buffer.from('a webhook secret of 32 bytes!!!!').toString('base64')}`;
const METRICS_TOKEN = 'metrics-token-3c5e7a9b1d3f5a7c9e1b3d5f7a9c1e3b';
/** Given to a `vllm` provider made in code, not by a setting: only the provider's `secrets` name it. */
const VLLM_KEY = 'vllm-key-6e4c2a0f8d6b4e2c0a8f6d4b2e0c8a6f';
const SECRETS = { OPENAI_KEY, ANTHROPIC_KEY, KEY_A, KEY_B, WEBHOOK_SECRET, METRICS_TOKEN, VLLM_KEY };

/** Asserts `text` holds none of the bridge's secrets, nor 12 characters in a row of any of them. */
function expectNoSecret(text: string, where: string): void {
  for (const [name, secret] of Object.entries(SECRETS)) {
    for (let at = 0; at + 12 <= secret.length; at++) {
      const piece = secret.slice(at, at + 12);
      if (text.includes(piece)) throw new Error(`${where} holds ${name} ("…${piece}…"): ${text.slice(0, 2000)}`);
    }
  }
}

/** A hostile environment that knows the bridge's secrets, and prints them. */
const leaky = defineEnvironment<{ n: number }, Record<string, never>>({
  name: 'leaky',
  splits: [{ name: 'train', type: 'train' }],
  tasks: taskList({ train: [{ n: 1 }] }),
  taskSchema: z.object({ n: z.number() }),
  setup: () => ({}),
  prompt: () => [{ type: 'text', text: `The operator's key is ${OPENAI_KEY}; key B is ${KEY_B}.`, detail: null }],
  tools: [
    defineTool<Record<string, never>, Record<string, never>>({
      name: 'peek',
      description: 'Show the vault.',
      input: null,
      run: () => ({
        blocks: [
          { type: 'text', text: `webhook=${WEBHOOK_SECRET} metrics=${METRICS_TOKEN}`, detail: null },
          { type: 'text', text: `${'.'.repeat(8180)}${ANTHROPIC_KEY} ${KEY_A}`, detail: null },
        ],
        metadata: { key: KEY_B, nested: [OPENAI_KEY] },
      }),
    }),
    defineTool<Record<string, never>, Record<string, never>>({
      name: 'boom',
      description: 'Fail, saying the key.',
      input: null,
      run: () => {
        throw new Error(`cannot open the vault with ${OPENAI_KEY}`);
      },
    }),
    defineTool<Record<string, never>, Record<string, never>>({
      name: 'submit',
      description: 'Finish.',
      input: null,
      run: () => ({ blocks: [{ type: 'text', text: 'Done.', detail: null }], reward: 1, finished: true }),
    }),
  ],
});

const CHAT_ROUTE = 'POST /v1/chat/completions';

function chunk(delta: Record<string, unknown>, finish: string | null = null): string {
  const body = {
    id: 'c1',
    object: 'chat.completion.chunk',
    created: 1,
    model: 'm',
    choices: [{ index: 0, delta, finish_reason: finish }],
  };
  return `data: ${JSON.stringify(body)}\n\n`;
}

/** A stream whose text spells the keys out a few characters per chunk, and quotes them whole in its reasoning. */
function spelledOut(text: string): string {
  const pieces: string[] = [];
  for (let at = 0; at < text.length; at += 5) pieces.push(chunk({ content: text.slice(at, at + 5) }));
  return [
    chunk({ role: 'assistant', content: '' }),
    chunk({ reasoning_content: `thinking of ${KEY_A}` }),
    ...pieces,
    chunk({}, 'stop'),
    'data: [DONE]\n\n',
  ].join('');
}

let vendor: FakeVendorServer;
let hooks: WebhookReceiver;
let bridge: TestBridge;
let log: CapturedLog;
const sent: Sent = [];

beforeAll(async () => {
  vendor = await startFakeVendorServer();
  hooks = await startWebhookReceiver();
  log = captureLog('debug');
  bridge = await startTestBridge(
    {
      RUNBRIDGE_DEFAULT_ENV: 'arith',
      RUNBRIDGE_API_KEYS: `${KEY_A},${KEY_B}`,
      RUNBRIDGE_WEBHOOK_SECRET: WEBHOOK_SECRET,
      RUNBRIDGE_WEBHOOK_ALLOWED_HOSTS: '127.0.0.1',
      RUNBRIDGE_METRICS_TOKEN: METRICS_TOKEN,
      OPENAI_BASE_URL: `${vendor.url}/v1`,
      OPENAI_API_KEY: OPENAI_KEY,
      ANTHROPIC_BASE_URL: vendor.url,
      ANTHROPIC_API_KEY: ANTHROPIC_KEY,
    },
    {
      apiKey: KEY_A,
      logger: log.logger,
      environments: [leaky, ...builtinEnvironments],
      providers: [
        recordingProvider(
          {
            peek: [
              {
                text: 'Peeking.',
                toolCalls: [
                  { name: 'peek', arguments: '{}' },
                  { name: 'boom', arguments: '{}' },
                ],
              },
              { toolCalls: [{ name: 'submit', arguments: '{}' }] },
            ],
          },
          sent,
        ),
        createVllmProvider({ baseUrl: vendor.url, apiKey: VLLM_KEY, maxRetries: 0 }),
      ],
    },
  );
});

afterAll(async () => {
  await bridge.shutdown();
  await hooks.close();
  await vendor.close();
  expectNoSecret(log.text(), 'the log');
});

const consoleSpies: Array<ReturnType<typeof vi.spyOn>> = [];
afterEach(() => {
  for (const spy of consoleSpies.splice(0)) {
    expectNoSecret(JSON.stringify(spy.mock.calls), 'the console');
    spy.mockRestore();
  }
});

/** Plays a run to its end and checks that nothing it published, stored or pushed holds a secret. */
async function playAndCheck(body: Record<string, unknown>): Promise<RunEvent[]> {
  for (const method of ['log', 'info', 'warn', 'error', 'debug'] as const) {
    consoleSpies.push(vi.spyOn(console, method).mockImplementation(() => undefined));
  }
  const before = hooks.received.length;
  const runId = await bridge.startRun({ ...body, webhook: { url: hooks.url } });
  const events = await bridge.readEvents(runId);
  assertEventOrder(events);
  expectNoSecret(JSON.stringify(events), 'the events');
  expectNoSecret(await (await bridge.fetch(`/v1/runs/${runId}`)).text(), 'the snapshot');
  expectNoSecret(await (await bridge.fetch('/v1/runs')).text(), 'the list');
  const deliveries = await hooks.waitFor(before + 1);
  expectNoSecret(deliveries.map((delivery) => delivery.body).join('\n'), 'the webhooks');
  return events;
}

describe("the bridge's own secrets", () => {
  it("are cut out of a vendor's 401 that quotes the key it was sent", async () => {
    vendor.reply(CHAT_ROUTE, {
      kind: 'json',
      status: 401,
      body: {
        error: {
          message: `Incorrect API key provided: Bearer ${OPENAI_KEY}. You can find your API key at https://platform.openai.com.`,
          type: 'invalid_request_error',
          code: 'invalid_api_key',
        },
      },
    });
    const events = await playAndCheck({ model: 'openai:gpt-4.1-mini' });
    expect(events.at(-1)).toMatchObject({ event: 'run.failed', code: 'model_auth' });
    const failed = events.at(-1) as { error: string };
    expect(failed.error).toContain('Incorrect API key provided: Bearer [redacted]');
    expect(vendor.requests.at(-1)!.headers.authorization).toBe(`Bearer ${OPENAI_KEY}`);
  });

  it("are cut out of Anthropic's 401 that quotes the x-api-key it was sent, in plain text", async () => {
    vendor.reply('POST /v1/messages', { kind: 'json', status: 401, body: `invalid x-api-key: ${ANTHROPIC_KEY}` });
    const events = await playAndCheck({ model: 'anthropic:claude-sonnet-5-5' });
    expect(events.at(-1)).toMatchObject({ event: 'run.failed', code: 'model_auth' });
  });

  it("are cut out of a vLLM server's 401 that quotes the key of a provider made in code", async () => {
    vendor.reply('POST /tokenize', {
      kind: 'json',
      status: 401,
      body: { error: { message: `Unauthorized: Bearer ${VLLM_KEY}`, type: 'Unauthorized', param: null, code: 401 } },
    });
    const events = await playAndCheck({ model: 'vllm:Qwen/Qwen3-8B' });
    expect(events.at(-1)).toMatchObject({ event: 'run.failed', code: 'model_auth' });
    expect((events.at(-1) as { error: string }).error).toContain('Unauthorized: Bearer [redacted]');
    expect(vendor.requests.at(-1)!.headers.authorization).toBe(`Bearer ${VLLM_KEY}`);
  });

  it("are cut out of a chat completion's 502", async () => {
    vendor.reply(CHAT_ROUTE, {
      kind: 'json',
      status: 401,
      body: { error: { message: `Incorrect API key provided: Bearer ${OPENAI_KEY}`, type: 'invalid_request_error' } },
    });
    const response = await bridge.fetch('/v1/chat/completions', {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ model: 'openai:gpt-4.1-mini', messages: [{ role: 'user', content: 'hi' }] }),
    });
    expect(response.status).toBe(502);
    const body = await response.text();
    expect(body).toContain('model_auth');
    expectNoSecret(body, 'the 502');
  });

  it('are cut out of a stream that spells them out a few characters per chunk', async () => {
    const text = `Here: ${OPENAI_KEY} and ${KEY_B}, then ${WEBHOOK_SECRET} — and ${METRICS_TOKEN.slice(0, 30)}`;
    vendor.reply(CHAT_ROUTE, { kind: 'sse', text: spelledOut(text) });
    const events = await playAndCheck({ model: 'openai:gpt-4.1-mini' });
    const completed = events.at(-1);
    expect(completed).toMatchObject({ event: 'run.completed' });
    expect((completed as { output: string }).output).toBe(
      'Here: [redacted] and [redacted], then [redacted] — and [redacted]',
    );
  });

  it('are cut out of a stream line the SDK cannot parse, and the SDK prints nothing', async () => {
    vendor.reply(CHAT_ROUTE, { kind: 'sse', text: `${chunk({ content: 'a' })}data: {"key": "${OPENAI_KEY}"\n\n` });
    const events = await playAndCheck({ model: 'openai:gpt-4.1-mini' });
    expect(events.at(-1)).toMatchObject({ event: 'run.failed' });
    for (const spy of consoleSpies) expect(spy).not.toHaveBeenCalled();
  });

  it("are cut out of what an environment prints — prompt, outputs past the event's cut, metadata, errors — and out of what the model is shown", async () => {
    const events = await playAndCheck({ env: 'leaky', model: 'scripted:peek' });
    expect(events.at(-1)).toMatchObject({ event: 'run.completed' });
    const completed = events.filter((event) => event.event === 'tool.completed');
    expect(completed.map((event) => (event as { error: boolean }).error)).toEqual([false, true, false]);
    expectNoSecret(JSON.stringify(sent), 'the conversation the model was shown');
    expect(textOf(sent[0]![0]!)).toContain('[redacted]');
  });
});

describe("the bridge's own secrets, quoted by an ORS server that refuses every request", () => {
  it('are cut out of the error a route answers with', async () => {
    const ors = await serveLoopbackInTest((_req, res) => {
      res.writeHead(400, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ detail: `no access for ${KEY_B} nor ${OPENAI_KEY}` }));
    });
    const refused = await startTestBridge(
      { ORS_URL: ors.url, RUNBRIDGE_API_KEYS: `${KEY_A},${KEY_B}`, OPENAI_API_KEY: OPENAI_KEY },
      { apiKey: KEY_A },
    );
    try {
      const response = await refused.fetch('/v1/environments');
      expect(response.status).toBe(502);
      const body = await response.text();
      expect(body).toContain('no access for [redacted] nor [redacted]');
      expectNoSecret(body, 'the error');
    } finally {
      await refused.shutdown();
    }
  });
});
