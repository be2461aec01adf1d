import type { ServerResponse } from 'node:http';
import { type RecordFormat, RecordRows } from '../rollouts/export/record-rows.js';
import type { StoredBatch } from '../rollouts/rollout-batch-store.js';
import type { RolloutService } from '../rollouts/rollout-service.js';
import { batchStatusOf } from '../rollouts/rollout-snapshot-of.js';
import { formatSseFrame } from '../sse/format-sse-frame.js';
import { SSE_HEADERS, SSE_KEEPALIVE, SSE_RETRY_LINE } from '../sse/sse-headers.js';
import { drained } from './drained.js';

/** Response headers of a batch's records as NDJSON: one JSON value per line, never buffered by a proxy. */
export const NDJSON_HEADERS = {
  'Content-Type': 'application/x-ndjson; charset=utf-8',
  'Cache-Control': 'no-cache',
  'X-Accel-Buffering': 'no',
} as const;

/** Records read from the store per round at most; fewer when records are large (see {@link nextChunk}). */
const CHUNK = 100;

export interface RecordStreamOptions {
  rollouts: Pick<RolloutService, 'records' | 'changed' | 'current'>;
  batch: StoredBatch;
  res: ServerResponse;
  format: RecordFormat;
  /** SSE (each record, or grpo group, one event whose id is its seq) rather than NDJSON. */
  sse: boolean;
  /** Send what the records after seq `after` make; -1 sends everything. */
  after: number;
  keepaliveMs: number;
  /** A reader whose unsent bytes pass this bound is disconnected; it resumes from its cursor. */
  bufferBytes: number;
  signal: AbortSignal;
  now: () => number;
}

/**
 * Serves one reader of a batch's records (docs/api.md, "Rollout batches"): opens the stream at once,
 * writes the lines of every record after its cursor as the batch settles them, in settling order, a
 * keep-alive whenever `keepaliveMs` pass with nothing written (a blank line in NDJSON, a comment in
 * SSE), and ends once the batch has ended and every record is out — in SSE with an `end` event that
 * gives the batch's status. A grpo group is written once its last sample is in, as one SSE event
 * (one data line per row) whose id is the seq of that last record.
 *
 * As a run's subscriber (docs/protocol.md §3.8), a reader whose unsent bytes pass `bufferBytes` is cut
 * off — judged before each line, so one line larger than the bound still reaches a reader that keeps
 * up — and one that is behind is paced by `drain`. What it holds besides is bounded too: a round reads
 * about `bufferBytes` of records from the store, and an open grpo group is kept as seqs, not records.
 */
export async function streamRolloutRecords(options: RecordStreamOptions): Promise<void> {
  const { rollouts, batch, res, sse, after, keepaliveMs, bufferBytes, signal, now } = options;
  const id = batch.record.id;
  const rows = new RecordRows(options.format, batch.record, async (seq) => (await rollouts.records(id, seq - 1, 1))[0]);
  try {
    res.writeHead(200, sse ? SSE_HEADERS : NDJSON_HEADERS);
    res.flushHeaders();
    // A grpo group may have begun before the cursor: its earlier samples are read again, not sent.
    let next = options.format === 'grpo' ? 0 : after + 1;
    let size = CHUNK;
    let lastWrite = now();
    let retrySent = false;
    const write = (text: string): void => {
      if (sse && !retrySent) res.write(SSE_RETRY_LINE);
      retrySent = true;
      res.write(text);
      lastWrite = now();
    };
    while (!signal.aborted && !res.destroyed) {
      const chunk = await rollouts.records(id, next - 1, size);
      if (chunk.length > 0) {
        size = nextChunk(chunk, bufferBytes);
        for (const json of chunk) {
          const seq = next++;
          let framed = false;
          for await (const line of rows.push(json, seq, seq > after)) {
            // Judged before each line: a reader still holding more than the bound unsent has stopped.
            if (res.writableLength > bufferBytes) {
              res.destroy();
              return;
            }
            if (!sse) write(line);
            else {
              // One event per record or grpo group, its id the record's seq: a cut frame is dropped whole by the reader.
              write(
                `${framed ? '' : formatSseFrame({ id: seq }).slice(0, -1)}${formatSseFrame({ data: line.slice(0, -1) }).slice(0, -1)}`,
              );
              framed = true;
            }
            if (res.writableNeedDrain) await drained(res, keepaliveMs, signal);
            if (signal.aborted || res.destroyed) return;
          }
          if (framed) write('\n');
        }
        continue;
      }
      const current = await rollouts.current(id);
      // Its last record and its end are settled together: one more read takes any record before the end.
      if (current !== undefined && current.finishedAt !== null && current.records > next) continue;
      if (current === undefined || current.finishedAt !== null) {
        if (sse) {
          const status = current === undefined ? 'forgotten' : batchStatusOf(current, 0);
          write(formatSseFrame({ event: 'end', data: JSON.stringify({ rollout_id: id, status }) }));
        }
        res.end();
        return;
      }
      await rollouts.changed(id, keepaliveMs, signal);
      if (now() - lastWrite >= keepaliveMs) {
        res.write(sse ? SSE_KEEPALIVE : '\n');
        lastWrite = now();
      }
    }
  } finally {
    if (!res.writableEnded && !res.destroyed) res.destroy();
  }
}

/**
 * How many records to read next, after a round read `chunk`: about `bytes` of them, at least one and at
 * most {@link CHUNK}. A round's records are held until they are written, so a batch of large records
 * (any client can make one, with large `instructions`) is read a few at a time.
 */
function nextChunk(chunk: readonly string[], bytes: number): number {
  const average = chunk.reduce((sum, json) => sum + json.length, 0) / chunk.length;
  return Math.max(1, Math.min(CHUNK, Math.floor(bytes / Math.max(1, average))));
}
