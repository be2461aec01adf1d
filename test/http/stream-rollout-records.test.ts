import { once } from 'node:events';
import { createServer, type Server, type ServerResponse } from 'node:http';
import net from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { streamRolloutRecords } from '../../src/http/stream-rollout-records.js';
import type { RecordFormat } from '../../src/rollouts/export/record-rows.js';
import type { RolloutBatchRecord } from '../../src/rollouts/rollout-batch-record.js';
import { MemoryRolloutStore } from '../../src/store/memory/memory-rollout-store.js';
import { sampleBatch, sampleRecord } from '../rollouts/sample-record.js';

const BUFFER_BYTES = 256 * 1024;
/** Each record carries this much text: far more than the buffer bound in all, a fraction of it each. */
const RECORD_CHARS = 64 * 1024;

/** A finished batch of `tasks` tasks × `samples` samples whose records each hold {@link RECORD_CHARS} of text. */
async function finishedBatch(
  tasks: number,
  samples: number,
): Promise<{ store: MemoryRolloutStore; batch: RolloutBatchRecord }> {
  const store = new MemoryRolloutStore();
  const batch = sampleBatch({ id: 'ro_slow', indices: [...Array(tasks).keys()], samples, retries: 0 });
  const pairs = tasks * samples;
  await store.create(
    batch,
    Array.from({ length: pairs }, (_, n) => `run_${n}`),
  );
  for (let n = 0; n < pairs; n++) {
    const index = Math.floor(n / samples);
    const record = sampleRecord(index, n % samples, {
      reward: n % 2,
      messages: [{ role: 'user', content: `${n} ${'x'.repeat(RECORD_CHARS)}` }],
    });
    const outcome = JSON.stringify({ status: 'completed', reward: n % 2, startedAt: 1 });
    await store.settle(batch.id, n, `run_${n}`, 1, { kind: 'record', record: JSON.stringify(record), outcome }, 2);
  }
  return { store, batch };
}

interface Served {
  /** The most bytes the response held unsent right after any write. */
  mostBuffered: number;
  /** Resolves when the server is done with the reader: it ended the stream, or cut the reader off. */
  done: Promise<void>;
}

const servers: Server[] = [];
const sockets: net.Socket[] = [];
afterEach(async () => {
  for (const socket of sockets.splice(0)) socket.destroy();
  for (const server of servers.splice(0)) {
    server.closeAllConnections();
    server.close();
  }
});

/** Serves `batch`'s records in `format` to one client that sends its request and never reads. */
async function serveToStalledReader(
  store: MemoryRolloutStore,
  batch: RolloutBatchRecord,
  format: RecordFormat,
  sse: boolean,
): Promise<Served> {
  const served: Served = { mostBuffered: 0, done: Promise.resolve() };
  let finished!: () => void;
  served.done = new Promise((resolve) => (finished = resolve));
  const server = createServer(async (_req, res: ServerResponse) => {
    const write = res.write.bind(res) as (chunk: string) => boolean;
    res.write = ((chunk: string) => {
      const more = write(chunk);
      served.mostBuffered = Math.max(served.mostBuffered, res.writableLength);
      return more;
    }) as typeof res.write;
    const controller = new AbortController();
    res.on('close', () => controller.abort());
    void streamRolloutRecords({
      rollouts: {
        records: (id, after, max) => store.records(id, after, max),
        changed: (id, ms, signal) => store.changed(id, ms, signal),
        current: (id) => store.get(id),
      },
      batch: (await store.get(batch.id))!,
      res,
      format,
      sse,
      after: -1,
      keepaliveMs: 50,
      bufferBytes: BUFFER_BYTES,
      signal: controller.signal,
      now: Date.now,
    }).finally(finished);
  });
  servers.push(server);
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as net.AddressInfo;
  const socket = net.connect({ host: '127.0.0.1', port });
  sockets.push(socket);
  // Paused with no 'data' listener: the kernel's buffers fill and the server sees a reader that stopped.
  socket.pause();
  socket.write('GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n');
  return served;
}

/** The largest single line a record of {@link finishedBatch} makes in any format, with room for its framing. */
const ONE_RECORD = 2 * RECORD_CHARS;

describe('a reader of batch records that never reads (docs/protocol.md §3.8)', () => {
  it.each([
    ['records', false],
    ['records', true],
    ['openai-chat', false],
  ] as const)(
    'is cut off at its buffer bound in format %s (SSE: %s), never sent a chunk past it',
    async (format, sse) => {
      // 150 records of 64 KiB: 9.6 MiB, more than the kernel's socket buffers take on loopback.
      const { store, batch } = await finishedBatch(150, 1);
      const served = await serveToStalledReader(store, batch, format, sse);
      await served.done;
      expect(served.mostBuffered).toBeGreaterThan(0);
      expect(served.mostBuffered).toBeLessThanOrEqual(BUFFER_BYTES + ONE_RECORD);
    },
  );

  it('is cut off at its buffer bound in format grpo, a whole group never written at once', async () => {
    // 10 tasks of 16 samples: each group's rows are 1 MiB together, four times the bound.
    const { store, batch } = await finishedBatch(10, 16);
    const served = await serveToStalledReader(store, batch, 'grpo', true);
    await served.done;
    expect(served.mostBuffered).toBeGreaterThan(0);
    expect(served.mostBuffered).toBeLessThanOrEqual(BUFFER_BYTES + ONE_RECORD);
  });
});
