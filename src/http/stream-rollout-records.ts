import type { ServerResponse } from 'node:http';
import { type RecordFormat, RecordRows } from '../rollouts/export/record-rows.js';
import type { StoredBatch } from '../rollouts/rollout-batch-store.js';
import type { RolloutService } from '../rollouts/rollout-service.js';
import type { RecordsEnd } from '../rollouts/rollout-snapshot.js';
import { batchStatusOf } from '../rollouts/rollout-snapshot-of.js';
import { formatSseFields, formatSseFrame } from '../sse/format-sse-frame.js';
import { SSE_DIALECT, type StreamDialect, StreamWriter } from '../sse/stream-writer.js';

/** Response headers of a batch's records as NDJSON: one JSON value per line, never buffered by a proxy. */
export const NDJSON_HEADERS = {
  'Content-Type': 'application/x-ndjson; charset=utf-8',
  'Cache-Control': 'no-cache',
  'X-Accel-Buffering': 'no',
} as const;

/** A batch's records as NDJSON: nothing before the first line, and a blank line as the keep-alive. */
const NDJSON_DIALECT: StreamDialect = { headers: NDJSON_HEADERS, first: '', keepalive: '\n' };

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
  const out = new StreamWriter(res, { dialect: sse ? SSE_DIALECT : NDJSON_DIALECT, bufferBytes, now });
  try {
    out.open();
    // A grpo group may have begun before the cursor: its earlier samples are read again, not sent.
    let next = options.format === 'grpo' ? 0 : after + 1;
    let size = CHUNK;
    while (!signal.aborted && !out.closed) {
      const chunk = await rollouts.records(id, next - 1, size);
      if (chunk.length > 0) {
        size = nextChunk(chunk, bufferBytes);
        for (const json of chunk) {
          const seq = next++;
          let framed = false;
          for await (const line of rows.push(json, seq, seq > after)) {
            if (!out.keepsUp()) return;
            if (!sse) out.write(line);
            else {
              // One event per record or grpo group, its id the record's seq: a cut frame is dropped whole by the reader.
              out.write(formatSseFields(framed ? { data: line.slice(0, -1) } : { id: seq, data: line.slice(0, -1) }));
              framed = true;
            }
            await out.paced(keepaliveMs, signal);
            if (signal.aborted || out.closed) return;
          }
          if (framed) out.write('\n');
        }
        continue;
      }
      const current = await rollouts.current(id);
      // Its last record and its end are settled together: one more read takes any record before the end.
      if (current !== undefined && current.finishedAt !== null && current.records > next) continue;
      // A batch forgotten under its reader (deleted, or past its retention) has no status to end with:
      // its stream is cut off, as a slow reader's is, and the reader's resume is answered 404
      // `rollout_not_found` (docs/protocol.md §14.3).
      if (current === undefined) return;
      if (current.finishedAt !== null) {
        const end = { rollout_id: id, status: batchStatusOf(current, 0) } satisfies RecordsEnd;
        out.end(sse ? formatSseFrame({ event: 'end', data: JSON.stringify(end) }) : '');
        return;
      }
      await rollouts.changed(id, keepaliveMs, signal);
      out.keepAliveIfQuiet(keepaliveMs);
    }
  } finally {
    out.close();
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
