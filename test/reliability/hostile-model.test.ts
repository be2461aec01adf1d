import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createOpenAiChatProvider } from '../../adapters/models/openai-chat/openai-chat-provider.js';
import type { RunEvent } from '../../src/protocol/run-events.js';
import { assertEventOrder } from '../../src/protocol/verify-event-order.js';
import { type FakeVendorServer, startFakeVendorServer } from '../support/fake-vendor-server.js';
import type { Flood } from '../support/flood-writer.js';
import { startTestBridge, type TestBridge } from '../support/start-test-bridge.js';

/**
 * A hostile model — an OpenAI-compatible server that streams a turn without end, as text or as one
 * tool call's arguments — driven through the real OpenAI SDK (docs/protocol.md §1.5): the run stops
 * reading at `RUNBRIDGE_MAX_TURN_OUTPUT_CHARS`, closes the stream and fails with
 * `model_output_too_large`; its session is deleted.
 */

const ROUTE = 'POST /v1/chat/completions';
const CAP = 256 * 1024;
/** What the hostile server is ready to send: far more than the cap, far less than it would take to hurt. */
const FLOOD_BYTES = 32 * 1024 * 1024;
const PIECE = 'y'.repeat(16 * 1024);

function chunk(delta: Record<string, unknown>): string {
  return chunkWith({ delta, logprobs: null });
}

const TEXT_FOREVER: Flood = {
  head: chunk({ role: 'assistant', content: '' }),
  piece: chunk({ content: PIECE }),
  bytes: FLOOD_BYTES,
};

const ARGUMENTS_FOREVER: Flood = {
  head:
    chunk({ role: 'assistant', content: null }) +
    chunk({
      tool_calls: [{ index: 0, id: 'call_flood', type: 'function', function: { name: 'submit', arguments: '' } }],
    }) +
    chunk({ tool_calls: [{ index: 0, function: { arguments: '{"answer": "' } }] }),
  piece: chunk({ tool_calls: [{ index: 0, function: { arguments: PIECE } }] }),
  bytes: FLOOD_BYTES,
};

const IDS = Array.from({ length: 2048 }, (_, i) => 100_000 + i);

const TOKEN_IDS_FOREVER: Flood = {
  head: chunk({ role: 'assistant', content: '' }),
  piece: chunkWith({ delta: {}, token_ids: IDS }),
  bytes: FLOOD_BYTES,
};

const LOGPROBS_FOREVER: Flood = {
  head: chunk({ role: 'assistant', content: '' }),
  piece: chunkWith({
    delta: {},
    logprobs: {
      content: Array.from({ length: 128 }, () => ({ token: '', logprob: -0.125, bytes: [], top_logprobs: [] })),
    },
  }),
  bytes: FLOOD_BYTES,
};

/** A chunk whose choice carries `fields` beside its index (vLLM's `token_ids`, `logprobs`, …) and no text. */
function chunkWith(fields: Record<string, unknown>): string {
  const body = {
    id: 'chatcmpl-flood',
    object: 'chat.completion.chunk',
    created: 1764000300,
    model: 'flood-1',
    choices: [{ index: 0, finish_reason: null, ...fields }],
  };
  return `data: ${JSON.stringify(body)}\n\n`;
}

let vendor: FakeVendorServer;
let bridge: TestBridge;

beforeEach(async () => {
  vendor = await startFakeVendorServer();
  bridge = await startTestBridge(
    {
      RUNBRIDGE_MODEL: 'openai:flood-1',
      RUNBRIDGE_DEFAULT_ENV: 'arith',
      RUNBRIDGE_MAX_TURN_OUTPUT_CHARS: String(CAP),
    },
    { providers: [createOpenAiChatProvider({ apiKey: 'sk-test', baseUrl: `${vendor.url}/v1`, maxRetries: 0 })] },
  );
});

afterEach(async () => {
  await bridge.shutdown();
  await vendor.close();
});

async function play(body: Record<string, unknown> = {}): Promise<RunEvent[]> {
  const events = await bridge.readEvents(await bridge.startRun(body));
  assertEventOrder(events);
  expect(bridge.orsServer!.activeSessionIds()).toEqual([]);
  return events;
}

describe('a model that streams without end', () => {
  it.each([
    ['text', TEXT_FOREVER, 'message.delta'],
    ["one call's arguments", ARGUMENTS_FOREVER, 'tool.arguments.delta'],
  ])('fails the run with model_output_too_large on %s and closes the stream early', async (_what, flood, delta) => {
    vendor.reply(ROUTE, { kind: 'flood', flood });
    const events = await play();

    const failed = events.at(-1);
    expect(failed).toMatchObject({ event: 'run.failed', code: 'model_output_too_large' });
    expect(failed?.event === 'run.failed' && failed.error).toContain('RUNBRIDGE_MAX_TURN_OUTPUT_CHARS');
    expect(events.some((event) => event.event === delta)).toBe(true);
    // No turn was completed and no call was made of the cut output.
    expect(events.map((event) => event.event)).not.toContain('turn.completed');
    expect(events.map((event) => event.event)).not.toContain('tool.started');
    // What the run published of the turn stays within the cap.
    const published = events.reduce(
      (chars, event) =>
        chars + (event.event === 'message.delta' || event.event === 'tool.arguments.delta' ? event.delta.length : 0),
      0,
    );
    expect(published).toBeLessThanOrEqual(CAP);
    await vi.waitFor(() => expect(vendor.floods).toHaveLength(1));
    expect(vendor.floods[0]!.closedEarly).toBe(true);
    expect(vendor.floods[0]!.written).toBeLessThan(FLOOD_BYTES / 4);
    expect(vendor.bodiesOf(ROUTE)).toHaveLength(1);
  });
});

describe('a model that streams chunks without text without end', () => {
  it.each([
    ['token ids', TOKEN_IDS_FOREVER],
    ['logprobs', LOGPROBS_FOREVER],
  ])(
    'fails the run with model_output_too_large on %s, counted against the turn cap, and closes the stream early',
    async (_what, flood) => {
      vendor.reply(ROUTE, { kind: 'flood', flood });
      const events = await play({ sampling: { extra_body: { return_token_ids: true } } });

      const failed = events.at(-1);
      expect(failed).toMatchObject({ event: 'run.failed', code: 'model_output_too_large' });
      expect(failed?.event === 'run.failed' && failed.error).toContain('RUNBRIDGE_MAX_TURN_OUTPUT_CHARS');
      expect(events.map((event) => event.event)).not.toContain('turn.completed');
      await vi.waitFor(() => expect(vendor.floods).toHaveLength(1));
      expect(vendor.floods[0]!.closedEarly).toBe(true);
      expect(vendor.floods[0]!.written).toBeLessThan(FLOOD_BYTES / 4);
    },
  );
});
