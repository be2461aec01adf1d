import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { RunEvent } from '../../src/protocol/run-events.js';
import { assertEventOrder } from '../../src/protocol/verify-event-order.js';
import { type FakeReply, type FakeVendorServer, startFakeVendorServer } from '../support/fake-vendor-server.js';
import type { Flood } from '../support/flood-writer.js';
import { startTestBridge, type TestBridge } from '../support/start-test-bridge.js';

/**
 * A hostile model server's answers as the transport under the SDKs reads them (docs/security.md,
 * "What a model server can send"), for each SDK-backed provider as `OPENAI_BASE_URL`,
 * `ANTHROPIC_BASE_URL` and `VLLM_BASE_URL` configure it: an event or line that never ends is read only up to
 * `RUNBRIDGE_MODEL_MAX_EVENT_BYTES` — the bridge keeps answering meanwhile — and the run fails
 * `model_error`; an error body is read only up to `RUNBRIDGE_MODEL_MAX_ERROR_BYTES`, and what the run
 * keeps of any error message is a few KB, whatever the vendor sent.
 */

const MB = 1024 * 1024;
/** Past the default event cap (8 MiB), and past the 16 MB that stalled the bridge before there was one. */
const LINE_BYTES = 20 * MB;
/** What a run keeps of an error: the vendor's words cut to a few KB, and the bridge's around them. */
const STORED_ERROR_CHARS = 4096;
const PIECE = 'y'.repeat(16 * 1024);

interface Vendor {
  provider: string;
  route: string;
  /** An SSE event's lines that announce the stream, before anything hostile. */
  opening: string;
  /** A complete SSE event reporting an error whose message is the flood's pieces. */
  errorEvent: { head: string; tail: string };
  /** What other routes answer, as a well-behaved server would, before the turn's own request. */
  before?: Record<string, FakeReply>;
}

const VENDORS: Vendor[] = [
  {
    provider: 'openai',
    route: 'POST /v1/chat/completions',
    opening: 'data: {"id":"c1","object":"chat.completion.chunk","created":1,"model":"m","choices":[]}\n\n',
    errorEvent: { head: 'data: {"error":{"type":"server_error","message":"', tail: '"}}\n\n' },
  },
  {
    provider: 'openai-responses',
    route: 'POST /v1/responses',
    opening:
      'event: response.created\ndata: {"type":"response.created","sequence_number":0,"response":{"id":"r1"}}\n\n',
    errorEvent: {
      head: 'event: error\ndata: {"type":"error","code":"server_error","sequence_number":1,"param":null,"message":"',
      tail: '"}\n\n',
    },
  },
  {
    provider: 'anthropic',
    route: 'POST /v1/messages',
    opening: 'event: ping\ndata: {"type":"ping"}\n\n',
    errorEvent: {
      head: 'event: error\ndata: {"type":"error","error":{"type":"api_error","message":"',
      tail: '"}}\n\n',
    },
  },
  {
    provider: 'vllm',
    route: 'POST /v1/completions',
    opening: 'data: {"id":"cmpl-1","object":"text_completion","created":1,"model":"m","choices":[]}\n\n',
    errorEvent: { head: 'data: {"error":{"type":"InternalServerError","message":"', tail: '"}}\n\n' },
    before: {
      'POST /tokenize': { kind: 'json', status: 200, body: { count: 3, max_model_len: 4096, tokens: [1, 2, 3] } },
    },
  },
];

const BY_NAME = VENDORS.map((v) => [v.provider, v] as const);

let vendor: FakeVendorServer;
let bridge: TestBridge;

/** A bridge whose providers all talk to `vendor`, with `env` beside. */
function startBridge(env: Record<string, string> = {}): Promise<TestBridge> {
  return startTestBridge({
    RUNBRIDGE_DEFAULT_ENV: 'arith',
    OPENAI_BASE_URL: `${vendor.url}/v1`,
    OPENAI_API_KEY: 'sk-test-hostile-answers',
    ANTHROPIC_BASE_URL: vendor.url,
    ANTHROPIC_API_KEY: 'sk-ant-test-hostile-answers',
    VLLM_BASE_URL: vendor.url,
    ...env,
  });
}

/** `v`'s turn answered with `reply`, its other routes as a well-behaved server answers them. */
function hostile(v: Vendor, reply: FakeReply): void {
  for (const [route, answer] of Object.entries(v.before ?? {})) vendor.reply(route, answer);
  vendor.reply(v.route, reply);
}

beforeEach(async () => {
  vendor = await startFakeVendorServer();
  bridge = await startBridge();
});

afterEach(async () => {
  await bridge.shutdown();
  await vendor.close();
});

async function play(runId: string): Promise<RunEvent[]> {
  const events = await bridge.readEvents(runId);
  assertEventOrder(events);
  expect(bridge.orsServer!.activeSessionIds()).toEqual([]);
  return events;
}

function failure(events: RunEvent[]): { code: string; error: string } {
  const last = events.at(-1);
  if (last?.event !== 'run.failed') throw new Error(`the run did not fail: ${JSON.stringify(last)}`);
  return { code: last.code, error: last.error };
}

describe.each(BY_NAME)('%s: a server whose stream never ends its event', (_name, v) => {
  it.each([
    ['one data line without a newline', 'data: {"pad":"', PIECE],
    ['one event of many lines without the blank line that ends it', '', `data: ${PIECE}\n`],
  ])(
    '%s is read up to the event cap while /health answers, and the run fails model_error',
    async (_what, head, piece) => {
      let reached!: () => void;
      const holding = new Promise<void>((resolve) => {
        reached = resolve;
      });
      let release!: () => void;
      const until = new Promise<void>((resolve) => {
        release = resolve;
      });
      const flood: Flood = {
        head: v.opening + head,
        piece,
        bytes: LINE_BYTES,
        hold: { after: 4 * MB, until, reached },
      };
      hostile(v, { kind: 'flood', flood });
      const runId = await bridge.startRun({ model: `${v.provider}:flood-1` });

      // 4 MB of one event are open: the bridge still answers.
      await holding;
      const health = await bridge.fetch('/health');
      expect(health.status).toBe(200);
      release();

      const { code, error } = failure(await play(runId));
      expect(code).toBe('model_error');
      expect(error).toContain('RUNBRIDGE_MODEL_MAX_EVENT_BYTES');
      await vi.waitFor(() => expect(vendor.floods).toHaveLength(1));
      expect(vendor.floods[0]!.closedEarly).toBe(true);
      // The default cap (8 MiB) and what the sockets held, not the whole line.
      expect(vendor.floods[0]!.written).toBeLessThan(16 * MB);
    },
  );

  it('is read only up to the cap RUNBRIDGE_MODEL_MAX_EVENT_BYTES sets, not the default one', async () => {
    const capped = await startBridge({ RUNBRIDGE_MODEL_MAX_EVENT_BYTES: String(MB) });
    try {
      hostile(v, { kind: 'flood', flood: { head: `${v.opening}data: {"pad":"`, piece: PIECE, bytes: LINE_BYTES } });
      const events = await capped.readEvents(await capped.startRun({ model: `${v.provider}:flood-1` }));
      const { code, error } = failure(events);
      expect(code).toBe('model_error');
      expect(error).toContain(`more than ${MB} bytes`);
      await vi.waitFor(() => expect(vendor.floods).toHaveLength(1));
      // The setting's cap and what the sockets held: less than the default cap (8 MiB) would let through.
      expect(vendor.floods[0]!.written).toBeLessThan(6 * MB);
    } finally {
      await capped.shutdown();
    }
  });

  it('an error event with a message of megabytes leaves a few KB of it in the run', async () => {
    const flood: Flood = {
      head: `${v.opening}${v.errorEvent.head}Overloaded: `,
      piece: `${'x'.repeat(1023)} `,
      tail: v.errorEvent.tail,
      bytes: 2 * MB,
    };
    hostile(v, { kind: 'flood', flood });
    const { error } = failure(await play(await bridge.startRun({ model: `${v.provider}:flood-1` })));
    expect(error).toContain('Overloaded: xxxx');
    expect(error.length).toBeLessThan(STORED_ERROR_CHARS);
  });
});

describe.each(BY_NAME)('%s: a server that refuses with an error body of megabytes', (_name, v) => {
  it('is read only up to the error cap; the run, its snapshot and the list keep a few KB of it', async () => {
    const flood: Flood = {
      head: '{"error":{"type":"invalid_request_error","message":"Your request was bad: ',
      piece: `${'x'.repeat(1023)} `.repeat(16),
      tail: '"}}',
      bytes: 32 * MB,
    };
    hostile(v, { kind: 'flood', flood, status: 400, contentType: 'application/json' });
    const runId = await bridge.startRun({ model: `${v.provider}:flood-1` });
    const { code, error } = failure(await play(runId));
    expect(code).toBe('model_bad_request');
    expect(error).toContain('Your request was bad');
    expect(error.length).toBeLessThan(STORED_ERROR_CHARS);
    await vi.waitFor(() => expect(vendor.floods).toHaveLength(1));
    expect(vendor.floods[0]!.closedEarly).toBe(true);
    expect(vendor.floods[0]!.written).toBeLessThan(16 * MB);

    const snapshot = await (await bridge.fetch(`/v1/runs/${runId}`)).text();
    expect(snapshot.length).toBeLessThan(64 * 1024);
    const list = await (await bridge.fetch('/v1/runs')).text();
    expect(list.length).toBeLessThan(64 * 1024);
  });
});
