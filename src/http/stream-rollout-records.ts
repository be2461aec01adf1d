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

/** Records read from the store per round. */
const CHUNK = 100;

export interface RecordStreamOptions {
  rollouts: RolloutService;
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
 */
export async function streamRolloutRecords(options: RecordStreamOptions): Promise<void> {
  const { rollouts, batch, res, sse, after, keepaliveMs, bufferBytes, signal, now } = options;
  const id = batch.record.id;
  const rows = new RecordRows(options.format, batch.record);
  try {
    res.writeHead(200, sse ? SSE_HEADERS : NDJSON_HEADERS);
    res.flushHeaders();
    // A grpo group may have begun before the cursor: its earlier samples are read again, not sent.
    let next = options.format === 'grpo' ? 0 : after + 1;
    let lastWrite = now();
    let retrySent = false;
    const write = (text: string): void => {
      if (text.length === 0) return;
      if (sse && !retrySent) res.write(SSE_RETRY_LINE);
      retrySent = true;
      res.write(text);
      lastWrite = now();
    };
    while (!signal.aborted && !res.destroyed) {
      const chunk = await rollouts.records(id, next - 1, CHUNK);
      if (chunk.length > 0) {
        if (res.writableLength > bufferBytes) {
          res.destroy();
          return;
        }
        let text = '';
        for (const json of chunk) {
          const seq = next++;
          const lines = rows.push(json);
          if (seq <= after || lines.length === 0) continue;
          text += sse ? formatSseFrame({ id: seq, data: lines.join('').slice(0, -1) }) : lines.join('');
        }
        write(text);
        if (res.writableNeedDrain) await drained(res, keepaliveMs, signal);
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
