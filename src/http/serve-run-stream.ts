import type { Context } from 'koa';
import type { OpenedRun } from '../runs/run-store.js';
import type { AppDeps, AppState } from './app-deps.js';
import type { FormatOptions, StreamContext, StreamFormat } from './formats/stream-format.js';
import { streamFormatName } from './formats/stream-formats.js';
import { responseSignal } from './response-signal.js';
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
 * of shutdown. The stream holds a slot of `deps.streams` throughout — `slot` when the caller took one
 * already, else one taken here, which throws the 429 before anything is written. Koa steps aside
 * (`respond = false`); headers set on `ctx` before the call (e.g. `x-run-id`) go out with the
 * stream's own. The client's going away is read from the response's `close`, not the request's: a
 * request whose body was read (a POST) closes at once.
 */
export async function serveRunStream(
  ctx: Context & { state: AppState },
  deps: AppDeps,
  run: OpenedRun,
  format: StreamFormat,
  options: FormatOptions,
  after: number,
  slot: () => void = deps.streams.acquire(ctx.state.owner),
): Promise<void> {
  const { signal, release } = responseSignal(ctx.res, deps.shutdownSignal);
  const closed = deps.telemetry.metrics.streamOpened(streamFormatName(format));
  try {
    ctx.respond = false;
    await streamRunEvents({
      run,
      runs: deps.registry,
      res: ctx.res,
      format,
      context: streamContextOf(run, options),
      after,
      keepaliveMs: deps.config.keepaliveMs,
      bufferBytes: deps.config.subscriberBufferBytes,
      signal,
    });
  } finally {
    closed();
    release();
    slot();
  }
}
