import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createOpenAiChatProvider } from '../../adapters/models/openai-chat/openai-chat-provider.js';
import type { RunEvent } from '../../src/protocol/run-events.js';
import { assertEventOrder } from '../../src/protocol/verify-event-order.js';
import { type FakeReply, type FakeVendorServer, startFakeVendorServer } from '../support/fake-vendor-server.js';
import { startTestBridge, type TestBridge } from '../support/start-test-bridge.js';

/**
 * The real Chat Completions adapter (official SDK, 2 retries) against a fake vendor, driven by whole
 * runs (docs/protocol.md §6): what the SDK may safely retry is retried within its bound, then the run fails
 * with a model code; a broken stream is not retried (its deltas are already published); a hung
 * vendor is cut by the run's own time limit. Every episode still closes its ORS session.
 */

const ROUTE = 'POST /v1/chat/completions';
const TEXT: FakeReply = { kind: 'stream', fixture: 'openai-chat/text.sse' };
/** The SDK honours `retry-after-ms` before `Retry-After`; the fast one keeps retry tests quick. */
const FAST_RETRY = { 'retry-after-ms': '5', 'Retry-After': '1' };

let vendor: FakeVendorServer;
let bridge: TestBridge;

async function startBridge(env: Record<string, string> = {}): Promise<void> {
  bridge = await startTestBridge(
    { RUNBRIDGE_MODEL: 'openai', RUNBRIDGE_DEFAULT_ENV: 'arith', ...env },
    { providers: [createOpenAiChatProvider({ apiKey: 'sk-test', baseUrl: `${vendor.url}/v1`, maxRetries: 2 })] },
  );
}

async function play(): Promise<RunEvent[]> {
  const events = await bridge.readEvents(await bridge.startRun({}));
  assertEventOrder(events);
  expect(bridge.orsServer!.activeSessionIds()).toEqual([]);
  return events;
}

beforeEach(async () => {
  vendor = await startFakeVendorServer();
});

afterEach(async () => {
  await bridge?.shutdown();
  await vendor.close();
});

describe('model faults the SDK retries', () => {
  it('waits out a 429 with Retry-After and completes the run', async () => {
    await startBridge();
    vendor.reply(
      ROUTE,
      {
        kind: 'json',
        status: 429,
        body: { error: { message: 'Rate limit reached', type: 'requests' } },
        headers: { 'Retry-After': '1' },
      },
      TEXT,
    );
    const events = await play();
    expect(events.at(-1)).toMatchObject({
      event: 'run.completed',
      output: 'Hello, world! 👋',
      stop_reason: 'no_tool_calls',
    });
    expect(vendor.bodiesOf(ROUTE)).toHaveLength(2);
  });

  it('retries a 500 and completes the run', async () => {
    await startBridge();
    vendor.reply(
      ROUTE,
      { kind: 'json', status: 500, body: { error: { message: 'boom', type: 'server_error' } }, headers: FAST_RETRY },
      TEXT,
    );
    const events = await play();
    expect(events.at(-1)).toMatchObject({ event: 'run.completed', output: 'Hello, world! 👋' });
    expect(vendor.bodiesOf(ROUTE)).toHaveLength(2);
  });

  it.each([
    [429, 'Rate limit reached'],
    [500, 'The server had an error'],
    [503, 'Overloaded'],
  ])('fails the run with model_unavailable after 1 + 2 attempts when %i persists', async (status, message) => {
    await startBridge();
    vendor.reply(ROUTE, {
      kind: 'json',
      status,
      body: { error: { message, type: 'server_error' } },
      headers: FAST_RETRY,
    });
    const events = await play();
    const failed = events.at(-1);
    expect(failed).toMatchObject({ event: 'run.failed', code: 'model_unavailable' });
    expect(failed?.event === 'run.failed' && failed.error).toContain(`HTTP ${status}`);
    expect(failed?.event === 'run.failed' && failed.error).toContain(message);
    expect(vendor.bodiesOf(ROUTE)).toHaveLength(3);
    expect(events.map((event) => event.event)).toEqual(['run.started', 'prompt.available', 'run.failed']);
  });

  it('does not retry a refused request (400) and says what to check', async () => {
    await startBridge();
    vendor.reply(ROUTE, {
      kind: 'json',
      status: 400,
      body: { error: { message: "Unsupported parameter: 'seed'", type: 'invalid_request_error' } },
    });
    const events = await play();
    expect(events.at(-1)).toMatchObject({ event: 'run.failed', code: 'model_bad_request' });
    expect(vendor.bodiesOf(ROUTE)).toHaveLength(1);
  });
});

describe('model streams that break', () => {
  it('fails with model_stream_interrupted when the stream is cut midway, without a retry that would repeat published text', async () => {
    await startBridge();
    vendor.reply(ROUTE, { kind: 'stream', fixture: 'openai-chat/text.sse', stopAfterFrames: 2, then: 'cut' }, TEXT);
    const events = await play();
    expect(events.map((event) => event.event)).toEqual([
      'run.started',
      'prompt.available',
      'message.delta',
      'run.failed',
    ]);
    expect(events.at(-1)).toMatchObject({ event: 'run.failed', code: 'model_stream_interrupted' });
    expect(vendor.bodiesOf(ROUTE)).toHaveLength(1);
  });

  it('fails with model_stream_interrupted when the stream ends early without its last chunk', async () => {
    await startBridge();
    vendor.reply(ROUTE, { kind: 'stream', fixture: 'openai-chat/text.sse', stopAfterFrames: 3, then: 'end' });
    const events = await play();
    expect(events.at(-1)).toMatchObject({ event: 'run.failed', code: 'model_stream_interrupted' });
  });

  it("fails with the vendor's reason when it reports an error inside the stream", async () => {
    await startBridge();
    vendor.reply(ROUTE, { kind: 'stream', fixture: 'openai-chat/error-midway.sse' });
    const events = await play();
    const failed = events.at(-1);
    expect(failed).toMatchObject({ event: 'run.failed', code: 'model_unavailable' });
    expect(failed?.event === 'run.failed' && failed.error).toContain('The server had an error');
  });
});

describe('a model that hangs', () => {
  it.each<[string, FakeReply]>([
    ['before answering', { kind: 'hang' }],
    [
      'midway through its stream',
      { kind: 'stream', fixture: 'openai-chat/text.sse', stopAfterFrames: 2, then: 'hang' },
    ],
  ])(
    "is cut by the run's time limit %s: run.cancelled with reason timeout, and the request is closed",
    async (_when, reply) => {
      await startBridge({ RUNBRIDGE_RUN_TIMEOUT_SECONDS: '0.5' });
      vendor.reply(ROUTE, reply);
      const events = await play();
      expect(events.at(-1)).toMatchObject({ event: 'run.cancelled', reason: 'timeout' });
      await vendor.responseClosed(0);
      expect(vendor.bodiesOf(ROUTE)).toHaveLength(1);
      const snapshot = (await (await bridge.fetch(`/v1/runs/${events[0]!.run_id}`)).json()) as { status: string };
      expect(snapshot.status).toBe('cancelled');
    },
  );
});
