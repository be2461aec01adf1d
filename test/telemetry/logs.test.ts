import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createOpenAiChatProvider } from '../../adapters/models/openai-chat/openai-chat-provider.js';
import type { RunSnapshot } from '../../src/protocol/run-snapshot.js';
import { type CapturedLog, captureLog } from '../support/captured-log.js';
import { type FakeVendorServer, startFakeVendorServer } from '../support/fake-vendor-server.js';
import { type OtlpReceiver, startOtlpReceiver } from '../support/otlp-receiver.js';
import { startTestBridge, type TestBridge } from '../support/start-test-bridge.js';
import { startWebhookReceiver, type WebhookReceiver } from '../support/webhook-receiver.js';

/**
 * The log (docs/operations.md#logs) of a traced run that used every secret the bridge holds: the API
 * key, a stream token, a run secret, the model provider's key, the webhook signing secret and the
 * metrics token. The whole log, written at `debug` (whole errors), holds none of them.
 */

const API_KEY = `key-${randomBytes(16).toString('hex')}`;
const METRICS_TOKEN = `metrics-${randomBytes(16).toString('hex')}`;
const MODEL_KEY = `sk-${randomBytes(16).toString('hex')}`;
const RUN_SECRET = `run-secret-${randomBytes(16).toString('hex')}`;
const WEBHOOK_SECRET = `whsec_${randomBytes(32).toString('base64')}`;
const TASK = { spec: { question: 'What is 17 + 25?', answer: 42 } };

describe("the bridge's log", () => {
  let log: CapturedLog;
  let receiver: OtlpReceiver;
  let vendor: FakeVendorServer;
  let hooks: WebhookReceiver;
  let bridge: TestBridge;
  let snapshot: RunSnapshot;
  let streamToken: string;

  beforeAll(async () => {
    log = captureLog('debug');
    receiver = await startOtlpReceiver();
    vendor = await startFakeVendorServer();
    vendor.reply(
      'POST /v1/chat/completions',
      { kind: 'stream', fixture: 'openai-chat/arith-calculator.sse' },
      { kind: 'stream', fixture: 'openai-chat/arith-submit.sse' },
    );
    // The receiver refuses every delivery, so the webhook's failure is logged too.
    hooks = await startWebhookReceiver(() => 500);
    bridge = await startTestBridge(
      {
        RUNBRIDGE_API_KEYS: API_KEY,
        RUNBRIDGE_METRICS_TOKEN: METRICS_TOKEN,
        RUNBRIDGE_MODEL: 'openai',
        RUNBRIDGE_WEBHOOK_SECRET: WEBHOOK_SECRET,
        RUNBRIDGE_WEBHOOK_ALLOWED_HOSTS: '127.0.0.1',
        RUNBRIDGE_WEBHOOK_MAX_ATTEMPTS: '2',
        RUNBRIDGE_WEBHOOK_RETRY_SECONDS: '0.01',
        RUNBRIDGE_WEBHOOK_POLL_SECONDS: '0.02',
        OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
      },
      {
        apiKey: API_KEY,
        logger: log.logger,
        providers: [createOpenAiChatProvider({ apiKey: MODEL_KEY, baseUrl: `${vendor.url}/v1`, maxRetries: 0 })],
      },
    );
    const runId = await bridge.startRun({
      env: 'arith',
      task: TASK,
      secrets: { api_token: RUN_SECRET },
      webhook: { url: `${hooks.url}/hook`, events: ['run.completed'] },
    });
    const issued = await bridge.fetch(`/v1/runs/${runId}/stream-token`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: '{}',
    });
    streamToken = ((await issued.json()) as { token: string }).token;
    // The stream opened with the token alone, as a browser's EventSource would.
    const events = await fetch(`${bridge.url}/v1/runs/${runId}/events?token=${encodeURIComponent(streamToken)}`);
    await events.text();
    await hooks.waitFor(2);
    await fetch(`${bridge.url}/metrics`, { headers: { Authorization: `Bearer ${METRICS_TOKEN}` } });
    await fetch(`${bridge.url}/v1/runs`, { headers: { Authorization: 'Bearer not-the-key-0123456789' } });
    snapshot = (await (await bridge.fetch(`/v1/runs/${runId}`)).json()) as RunSnapshot;
    await bridge.shutdown();
  });

  afterAll(async () => {
    await bridge.shutdown();
    await hooks.close();
    await vendor.close();
    await receiver.close();
  });

  it('holds no API key, stream token, run secret, model key, webhook secret or metrics token', () => {
    expect(vendor.requests[0]?.headers.authorization).toBe(`Bearer ${MODEL_KEY}`);
    const text = log.text();
    expect(text.length).toBeGreaterThan(1000);
    for (const secret of [API_KEY, streamToken, RUN_SECRET, MODEL_KEY, WEBHOOK_SECRET, METRICS_TOKEN]) {
      expect(text).not.toContain(secret);
    }
  });

  it("has one line at the run's start and one at its end, with run_id, trace_id, env, model, status, turns, reward and duration", () => {
    const lines = log.lines().filter((line) => line.run_id === snapshot.run_id);
    const ids = { run_id: snapshot.run_id, trace_id: snapshot.trace_id };
    expect(snapshot.trace_id).toMatch(/^[\da-f]{32}$/);
    expect(lines.filter((line) => line.msg === 'run started')).toEqual([
      expect.objectContaining({ ...ids, level: 'info', env: 'arith', model: 'openai:gpt-4.1-mini' }),
    ]);
    expect(lines.filter((line) => line.msg === 'run ended')).toEqual([
      expect.objectContaining({
        ...ids,
        level: 'info',
        env: 'arith',
        status: 'completed',
        turns: 2,
        reward: snapshot.reward,
        duration_ms: expect.any(Number),
      }),
    ]);
  });

  it('has an access line per request, without the stream token in its query and never a body', () => {
    const requests = log.lines().filter((line) => line.msg === 'request');
    const created = requests.find((line) => line.method === 'POST' && line.route === '/v1/runs');
    expect(created).toMatchObject({
      status: 202,
      key: expect.stringMatching(/^key_[\da-f]{16}$/),
      request_id: expect.stringMatching(/^req_/),
      duration_ms: expect.any(Number),
      trace_id: snapshot.trace_id,
    });
    expect(JSON.stringify(created)).not.toContain('webhook');
    const stream = requests.find((line) => line.route === '/v1/runs/:id/events');
    expect(stream).toMatchObject({ status: 200, run_id: snapshot.run_id, key: created?.key });
    expect(stream?.query).toBeUndefined();
    expect(requests.find((line) => line.status === 401)).toMatchObject({ key: 'anonymous', path: '/v1/runs' });
  });

  it('says when a webhook delivery fails for good, and when the bridge shuts down', () => {
    expect(log.lines()).toContainEqual(
      expect.objectContaining({ level: 'warn', run_id: snapshot.run_id, trace_id: snapshot.trace_id, attempts: 2 }),
    );
    expect(log.messages()).toEqual(expect.arrayContaining([expect.stringMatching(/^shutting down/), 'shut down']));
  });

  it('gives every line about a run its trace_id', () => {
    const about = log.lines().filter((line) => line.run_id !== undefined);
    expect(about.length).toBeGreaterThan(3);
    for (const line of about) expect(line.trace_id).toMatch(/^[\da-f]{32}$/);
  });
});
