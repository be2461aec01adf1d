import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ModelPart } from '../../src/models/model.js';
import type { RunEvent } from '../../src/protocol/run-events.js';
import { eventually } from '../support/eventually.js';
import { singleModelProvider } from '../support/scripted-model.js';
import { startTestBridge, type TestBridge } from '../support/start-test-bridge.js';

const DELTA_CHARS = 64 * 1024;

/** A model that streams `deltas` text deltas of 64 KiB each, then answers. */
function bulkyProvider(deltas: number) {
  return singleModelProvider('bulky', async function* (): AsyncGenerator<ModelPart> {
    for (let index = 0; index < deltas; index++) {
      yield { type: 'text-delta', delta: `${String(index).padStart(6, '0')}${'y'.repeat(DELTA_CHARS - 6)}` };
    }
    yield { type: 'usage', usage: { inputTokens: 1, outputTokens: deltas } };
    yield { type: 'finish', reason: 'stop' };
  });
}

interface Page {
  data: RunEvent[];
  has_more: boolean;
  next_after: number | null;
  last_seq: number;
}

async function page(bridge: TestBridge, runId: string, query: string): Promise<{ page: Page; bytes: number }> {
  const response = await bridge.fetch(`/v1/runs/${runId}/events?${query}`, { headers: { Accept: 'application/json' } });
  expect(response.status).toBe(200);
  const text = await response.text();
  return { page: JSON.parse(text) as Page, bytes: Buffer.byteLength(text) };
}

/**
 * The JSON page of a run's events (docs/api.md) is bounded in bytes as a subscriber's buffer is, and
 * is answered as a stream is: it holds a stream slot until it is sent, so clients that never read it
 * are held to the stream caps.
 */
describe('the JSON page of a run of large events', () => {
  let bridge: TestBridge;
  let runId: string;

  beforeAll(async () => {
    bridge = await startTestBridge(
      {
        RUNBRIDGE_MODEL: 'bulky',
        RUNBRIDGE_SUBSCRIBER_BUFFER_BYTES: String(256 * 1024),
        RUNBRIDGE_MAX_TURN_OUTPUT_CHARS: String(64 * DELTA_CHARS),
      },
      { providers: [bulkyProvider(40)] },
    );
    runId = await bridge.startRun({ env: 'arith' });
    await bridge.readEvents(runId);
  });
  afterAll(() => bridge?.shutdown());

  it('stops at the buffer bound (one event past it at most), and pages on from there to the whole log', async () => {
    const whole = await bridge.readEvents(runId);
    // What a page holds before its last event: the last one may pass the bound, and comes whole.
    const beforeLast = (data: RunEvent[]) => JSON.stringify(data.slice(0, -1)).length;
    const first = await page(bridge, runId, 'limit=1000');
    expect(first.bytes).toBeLessThanOrEqual(256 * 1024 + 2 * DELTA_CHARS);
    expect(first.page.data.length).toBeLessThan(whole.length);
    expect(first.page).toMatchObject({ has_more: true, next_after: first.page.data.at(-1)!.seq });

    const seen = [...first.page.data];
    let next = first.page.next_after;
    while (next !== null) {
      const { page: more } = await page(bridge, runId, `limit=1000&after=${next}`);
      expect(beforeLast(more.data)).toBeLessThan(256 * 1024);
      expect(more.data.length).toBeGreaterThan(0);
      seen.push(...more.data);
      next = more.next_after;
    }
    expect(seen).toEqual(whole);
  });
});

describe('JSON pages that are never read', () => {
  let bridge: TestBridge;
  const sockets: net.Socket[] = [];

  beforeAll(async () => {
    // 256 deltas of 64 KiB: a 16 MiB page, more than the kernel's socket buffers take on loopback.
    bridge = await startTestBridge(
      {
        RUNBRIDGE_MODEL: 'bulky',
        RUNBRIDGE_SUBSCRIBER_BUFFER_BYTES: String(64 * 1024 * 1024),
        RUNBRIDGE_MAX_TURN_OUTPUT_CHARS: String(300 * DELTA_CHARS),
        RUNBRIDGE_MAX_RUN_BYTES: String(80 * 1024 * 1024),
        RUNBRIDGE_MAX_STREAMS_PER_KEY: '2',
      },
      { providers: [bulkyProvider(256)] },
    );
  });
  afterAll(async () => {
    for (const socket of sockets) socket.destroy();
    await bridge?.shutdown();
  });

  it('hold a stream slot each until they are sent, so the stream caps bound them', async () => {
    const runId = await bridge.startRun({ env: 'arith' });
    await bridge.readEvents(runId);
    const { port } = new URL(bridge.url);
    for (let i = 0; i < 2; i++) {
      const socket = net.connect({ host: '127.0.0.1', port: Number(port) });
      sockets.push(socket);
      socket.pause();
      socket.write(
        `GET /v1/runs/${runId}/events?limit=1000 HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: application/json\r\n\r\n`,
      );
    }
    const refused = await eventually(async () => {
      const response = await bridge.fetch(`/v1/runs/${runId}/events?limit=1`, {
        headers: { Accept: 'application/json' },
      });
      const body = await response.text();
      return response.status === 429 && (JSON.parse(body) as { error: { code: string } });
    }, 'the third page refused');
    expect(refused).toMatchObject({ error: { code: 'too_many_streams' } });

    for (const socket of sockets.splice(0)) socket.destroy();
    await eventually(async () => {
      const response = await bridge.fetch(`/v1/runs/${runId}/events?limit=1`, {
        headers: { Accept: 'application/json' },
      });
      await response.text();
      return response.status === 200;
    }, 'the slots given back');
  });
});
