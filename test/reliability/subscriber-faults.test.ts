import { once } from 'node:events';
import net from 'node:net';
import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import { createOfflineProvider } from '../../adapters/models/offline/offline-provider.js';
import type { ModelPart, ModelProvider } from '../../src/models/model.js';
import { type RunEvent, RunEventSchema } from '../../src/protocol/run-events.js';
import { assertEventOrder } from '../../src/protocol/verify-event-order.js';
import { eventually } from '../support/eventually.js';
import { parseSseText } from '../support/parse-sse-text.js';
import { singleModelProvider, vendorPause } from '../support/scripted-model.js';
import { startTestBridge, type TestBridge } from '../support/start-test-bridge.js';

/**
 * Subscribers that misbehave (docs/protocol.md §3 "Fan-out" and "Resume"): one that stops reading never slows
 * the run or the others and is cut off at its buffer bound, then resumes from its cursor; a thousand
 * random disconnects and resumes, mid-frame included, join into exactly the log.
 */

const DELTA_CHARS = 16 * 1024;
/** The firehose's one turn of 800 deltas (12.5 MiB) is far above the default cap on a turn's output (§1.5). */
const FIREHOSE_TURN = { RUNBRIDGE_MAX_TURN_OUTPUT_CHARS: String(800 * DELTA_CHARS) };

/**
 * A model that streams `deltas` text deltas of 16 KiB each, after waiting for `gate` (so a test can
 * attach its subscribers first), then answers without tool calls.
 */
function firehoseProvider(deltas: number, gate: Promise<void>): ModelProvider {
  return singleModelProvider('firehose', async function* (request): AsyncGenerator<ModelPart> {
    await gate;
    for (let index = 0; index < deltas; index++) {
      // One delta per turn of the event loop: a reader in good health keeps up, a stalled one cannot.
      await new Promise((resolve) => setImmediate(resolve));
      request.signal.throwIfAborted();
      yield { type: 'text-delta', delta: `${String(index).padStart(6, '0')}${'y'.repeat(DELTA_CHARS - 6)}` };
    }
    yield { type: 'usage', usage: { inputTokens: 1, outputTokens: deltas } };
    yield { type: 'finish', reason: 'stop' };
  });
}

/** A raw HTTP/1.1 GET of a run's events on a socket that reads nothing until `drain()` is called. */
function stalledReader(bridge: TestBridge, runId: string): { socket: net.Socket; drain(): Promise<Buffer> } {
  const { port } = new URL(bridge.url);
  const socket = net.connect({ host: '127.0.0.1', port: Number(port) });
  // No 'data' listener and paused: Node fills its small read buffer and then stops reading the
  // kernel socket, whose window closes — the server sees a client that stopped reading.
  socket.pause();
  socket.write(`GET /v1/runs/${runId}/events HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: text/event-stream\r\n\r\n`);
  return {
    socket,
    async drain() {
      const chunks: Buffer[] = [];
      socket.on('data', (chunk: Buffer) => chunks.push(chunk));
      socket.resume();
      if (!socket.destroyed && !socket.readableEnded) await Promise.race([once(socket, 'close'), once(socket, 'end')]);
      return Buffer.concat(chunks);
    },
  };
}

/** The events in a raw chunked HTTP response: complete SSE frames only (a cut-off one is dropped). */
function eventsInRawResponse(raw: Buffer): RunEvent[] {
  const text = raw.toString('latin1');
  const bodyStart = text.indexOf('\r\n\r\n') + 4;
  // De-chunk by hand: the body is `size CRLF data CRLF`*; a cut may stop anywhere.
  const pieces: Buffer[] = [];
  let at = bodyStart;
  while (at < raw.length) {
    const lineEnd = raw.indexOf('\r\n', at);
    if (lineEnd < 0) break;
    const size = Number.parseInt(raw.subarray(at, lineEnd).toString('latin1'), 16);
    if (!Number.isFinite(size) || size === 0) break;
    pieces.push(raw.subarray(lineEnd + 2, Math.min(lineEnd + 2 + size, raw.length)));
    at = lineEnd + 2 + size + 2;
  }
  return parseSseText(Buffer.concat(pieces).toString('utf8')).map((frame) =>
    RunEventSchema.parse(JSON.parse(frame.data)),
  );
}

const bridges: TestBridge[] = [];
afterEach(async () => {
  for (const bridge of bridges.splice(0)) await bridge.shutdown();
});

describe('a subscriber that stops reading', () => {
  it('never slows the run or another reader, is cut off at its buffer bound, and resumes from its cursor', async () => {
    let open!: () => void;
    const gate = new Promise<void>((resolve) => (open = resolve));
    const deltas = 800; // 12.5 MiB of text, far beyond what the kernel's socket buffers can absorb
    const bridge = await startTestBridge(
      { RUNBRIDGE_MODEL: 'firehose', RUNBRIDGE_SUBSCRIBER_BUFFER_BYTES: String(256 * 1024), ...FIREHOSE_TURN },
      { providers: [firehoseProvider(deltas, gate)] },
    );
    bridges.push(bridge);
    const runId = await bridge.startRun({ env: 'arith' });
    const stalled = stalledReader(bridge, runId);
    const reading = bridge.readEvents(runId);
    await eventually(() => bridge.registry.localStats().subscribers === 2, 'both subscribers');
    open();

    const whole = await reading;
    assertEventOrder(whole);
    expect(whole.filter((event) => event.event === 'message.delta')).toHaveLength(deltas);
    const run = await bridge.registry.open(runId, 'local');
    expect(run.log.terminal?.event).toBe('run.completed');
    // The stalled reader is detached: cut off, not parked on a socket that will never drain.
    await eventually(() => bridge.registry.localStats().subscribers === 0, 'the stalled reader cut off');

    const raw = await stalled.drain();
    const received = eventsInRawResponse(raw);
    expect(raw.length).toBeLessThan(deltas * DELTA_CHARS);
    expect(received.at(-1)?.event).not.toMatch(/^run\.(completed|failed|cancelled)$/);
    expect(received).toEqual(whole.slice(0, received.length));

    const cursor = received.at(-1)?.seq ?? -1;
    const rest = await bridge.readEvents(runId, { headers: cursor < 0 ? {} : { 'Last-Event-ID': String(cursor) } });
    expect([...received, ...rest]).toEqual(whole);
  });

  it('is paced by its socket, not by the run, while it catches up on a live run', async () => {
    // 800 deltas of 16 KiB (12.5 MiB, more than the kernel's socket buffers hold), then a small one every
    // 5 ms until the test is done: the log keeps waking its readers while the reader is far behind.
    let backlogWritten!: () => void;
    const backlog = new Promise<void>((resolve) => (backlogWritten = resolve));
    let done = false;
    const provider = singleModelProvider('backlog', async function* (request): AsyncGenerator<ModelPart> {
      for (let index = 0; index < 800; index++) {
        await new Promise((resolve) => setImmediate(resolve));
        yield { type: 'text-delta', delta: `${String(index).padStart(6, '0')}${'y'.repeat(DELTA_CHARS - 6)}` };
      }
      backlogWritten();
      while (!done) {
        await vendorPause(5, request.signal);
        yield { type: 'text-delta', delta: '.' };
      }
      yield { type: 'usage', usage: { inputTokens: 1, outputTokens: 801 } };
      yield { type: 'finish', reason: 'stop' };
    });
    const bridge = await startTestBridge(
      {
        RUNBRIDGE_MODEL: 'backlog',
        RUNBRIDGE_SUBSCRIBER_BUFFER_BYTES: String(256 * 1024),
        // Room for the backlog and the small deltas after it.
        RUNBRIDGE_MAX_TURN_OUTPUT_CHARS: String(1000 * DELTA_CHARS),
      },
      { providers: [provider] },
    );
    bridges.push(bridge);
    try {
      const runId = await bridge.startRun({ env: 'arith' });
      await backlog;
      const stalled = stalledReader(bridge, runId);
      await eventually(() => bridge.registry.localStats().subscribers === 1, 'the reader');
      // Pushed a batch at each of the log's wakes (one per flush period), it would pass its bound within the
      // backlog's 200 batches; paced by its socket, it waits for `drain` (a keep-alive period) instead.
      const { log } = await bridge.registry.open(runId, 'local');
      for (let wake = 0; wake < 200; wake++) await log.nextWake();
      expect(bridge.registry.localStats().subscribers).toBe(1);
      stalled.socket.destroy();
    } finally {
      done = true;
    }
  });

  it('is cut off while catching up on a long finished log it stopped reading', async () => {
    const bridge = await startTestBridge(
      {
        RUNBRIDGE_MODEL: 'firehose',
        RUNBRIDGE_SUBSCRIBER_BUFFER_BYTES: String(256 * 1024),
        ...FIREHOSE_TURN,
        RUNBRIDGE_KEEPALIVE_SECONDS: '0.02',
      },
      { providers: [firehoseProvider(800, Promise.resolve())] },
    );
    bridges.push(bridge);
    const runId = await bridge.startRun({ env: 'arith' });
    const whole = await bridge.readEvents(runId);
    const stalled = stalledReader(bridge, runId);
    await eventually(() => bridge.registry.localStats().subscribers === 1, 'the stalled reader');
    await eventually(() => bridge.registry.localStats().subscribers === 0, 'the stalled reader cut off');
    const received = eventsInRawResponse(await stalled.drain());
    expect(received.length).toBeLessThan(whole.length);
    expect(received).toEqual(whole.slice(0, received.length));
  });
});

describe('random disconnects and resumes', () => {
  it('join over 1,000 cuts, at random bytes of live and finished streams, into exactly the log', async () => {
    // Token delays keep runs live while they are read, so many cuts land on streams still being written.
    const bridge = await startTestBridge({}, { providers: [createOfflineProvider({ tokenDelayMs: 0.25 })] });
    bridges.push(bridge);
    const { port } = new URL(bridge.url);
    let cuts = 0;
    let liveCuts = 0;

    /**
     * Reads a run's events over raw TCP from `cursor`, cutting the connection after `bytes` bytes of
     * body (`cut` says whether it came to that, or the stream ended first).
     */
    const readUntilCut = async (
      runId: string,
      cursor: number,
      bytes: number,
      viaHeader: boolean,
    ): Promise<{ status: number; cut: boolean; events: RunEvent[] }> => {
      const socket = net.connect({ host: '127.0.0.1', port: Number(port) });
      const query = cursor >= 0 && !viaHeader ? `?after=${cursor}` : '';
      const header = cursor >= 0 && viaHeader ? `Last-Event-ID: ${cursor}\r\n` : '';
      socket.write(
        `GET /v1/runs/${runId}/events${query} HTTP/1.1\r\nHost: 127.0.0.1\r\n${header}Connection: close\r\n\r\n`,
      );
      let raw = Buffer.alloc(0);
      let bodyStart = -1;
      let cut = false;
      await new Promise<void>((resolve) => {
        socket.on('data', (chunk: Buffer) => {
          raw = Buffer.concat([raw, chunk]);
          if (bodyStart < 0) bodyStart = raw.indexOf('\r\n\r\n') < 0 ? -1 : raw.indexOf('\r\n\r\n') + 4;
          if (bodyStart >= 0 && raw.length - bodyStart >= bytes && !cut) {
            cut = true;
            socket.destroy();
          }
        });
        socket.on('close', () => resolve());
        socket.on('error', () => resolve());
      });
      const status = Number(raw.subarray(9, 12).toString('latin1'));
      return { status, cut, events: status === 200 ? eventsInRawResponse(raw.subarray(0, bodyStart + bytes)) : [] };
    };

    /** Reads one run to its end through cuts, and checks the pieces join into its log. */
    const readThroughCuts = async (env: string, index: number, cutPlan: Array<[number, boolean]>): Promise<void> => {
      const runId = await bridge.startRun({ env, task: { split: 'train', index } });
      const run = await bridge.registry.open(runId, 'local');
      const pieces: RunEvent[] = [];
      let cursor = -1;
      let stalls = 0;
      for (let attempt = 0; ; attempt++) {
        const [bytes, viaHeader] = cutPlan[attempt % cutPlan.length]!;
        const live = !run.log.terminal;
        // A cut before the first whole event makes no progress; a bigger one next time always does.
        const { status, cut, events } = await readUntilCut(runId, cursor, bytes * 2 ** stalls, viaHeader);
        if (status === 204) break;
        expect(status).toBe(200);
        if (cut) cuts++;
        if (cut && live) liveCuts++;
        stalls = events.length === 0 ? stalls + 1 : 0;
        pieces.push(...events);
        cursor = pieces.at(-1)?.seq ?? cursor;
      }
      assertEventOrder(pieces);
      expect(pieces).toEqual(run.log.events());
    };

    const oneRun = fc.tuple(
      fc.constantFrom('arith', 'workspace'),
      fc.nat(40),
      fc.array(fc.tuple(fc.integer({ min: 1, max: 1000 }), fc.boolean()), { minLength: 20, maxLength: 20 }),
    );
    let runs = 0;
    await fc.assert(
      // 48 runs, 16 at a time: each property's runs wait on their token delays together.
      fc.asyncProperty(fc.array(oneRun, { minLength: 16, maxLength: 16 }), async (plans) => {
        runs += plans.length;
        await Promise.all(plans.map(([env, index, cutPlan]) => readThroughCuts(env, index, cutPlan)));
      }),
      { numRuns: 3 },
    );
    console.info(`disconnect/resume: ${cuts} cuts (${liveCuts} on live streams) over ${runs} runs`);
    expect(cuts).toBeGreaterThanOrEqual(1000);
    expect(liveCuts).toBeGreaterThan(0);
  }, 120_000);
});
