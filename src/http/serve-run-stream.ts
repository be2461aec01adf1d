import type { Context } from 'koa';
import type { OpenedRun } from '../runs/run-store.js';
import type { AppDeps, AppState } from './app-deps.js';
import type { FormatOptions, StreamContext, StreamFormat } from './formats/stream-format.js';
import { streamFormatName } from './formats/stream-formats.js';
import { serveStream } from './serve-stream.js';
import { streamRunEvents } from './stream-run-events.js';

/** What a format may know of `run` when serving it with the request's `options`. */
export function streamContextOf({ record, log }: OpenedRun, options: FormatOptions): StreamContext {
  return {
    runId: record.id,
    model: record.model,
    created: Math.floor(record.createdAt / 1000),
    options,
    log: log.entries,
  };
}

/**
 * Answers the request with `run`'s event stream in `format`, from the events after `after` on, and
 * resolves when the stream ends: after the terminal event, when the client goes away, or at the end
 * of shutdown. It holds a stream slot throughout, `slot` when the caller took one already
 * ({@link serveStream}).
 */
export function serveRunStream(
  ctx: Context & { state: AppState },
  deps: AppDeps,
  run: OpenedRun,
  format: StreamFormat,
  options: FormatOptions,
  after: number,
  slot: () => void = deps.streams.acquire(ctx.state.owner),
): Promise<void> {
  return serveStream(
    ctx,
    deps,
    streamFormatName(format),
    (signal) =>
      streamRunEvents({
        run,
        runs: deps.registry,
        res: ctx.res,
        format,
        context: streamContextOf(run, options),
        after,
        keepaliveMs: deps.config.keepaliveMs,
        bufferBytes: deps.config.subscriberBufferBytes,
        signal,
      }),
    slot,
  );
}
