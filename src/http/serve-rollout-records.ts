import type { Context } from 'koa';
import type { RecordFormat } from '../rollouts/export/record-rows.js';
import type { StoredBatch } from '../rollouts/rollout-batch-store.js';
import type { AppDeps, AppState } from './app-deps.js';
import { serveStream } from './serve-stream.js';
import { streamRolloutRecords } from './stream-rollout-records.js';

/**
 * Answers the request with `batch`'s records in `format` after seq `after`, as SSE or NDJSON, and
 * resolves when the stream ends. Like a run's event stream it holds a stream slot throughout, taken
 * here (a 429 before anything is written), and is counted among the open streams as `rollout-records`.
 */
export function serveRolloutRecords(
  ctx: Context & { state: AppState },
  deps: AppDeps,
  batch: StoredBatch,
  format: RecordFormat,
  sse: boolean,
  after: number,
): Promise<void> {
  return serveStream(ctx, deps, 'rollout-records', (signal) =>
    streamRolloutRecords({
      rollouts: deps.rollouts,
      batch,
      res: ctx.res,
      format,
      sse,
      after,
      keepaliveMs: deps.config.keepaliveMs,
      bufferBytes: deps.config.subscriberBufferBytes,
      signal: signal.asAbortSignal(),
      now: deps.now,
    }),
  );
}
