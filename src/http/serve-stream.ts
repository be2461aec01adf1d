import type { Context } from 'koa';
import type { AppDeps, AppState } from './app-deps.js';
import { type ResponseSignal, responseSignal } from './response-signal.js';

/**
 * Answers the request with a stream that `serve` writes to `ctx.res`, and resolves when `serve` does.
 * The stream holds a slot of `deps.streams` throughout — `slot` when the caller took one already, else
 * one taken here, which throws the 429 before anything is written — and is counted among the open
 * streams (`runbridge_event_streams_open`) under `name`. Koa steps aside (`respond = false`); headers
 * set on `ctx` before the call (e.g. `x-run-id`) go out with the stream's own. `serve` is told when the
 * client goes away, read from the response's `close`, not the request's (a request whose body was read,
 * a POST, closes at once), or when the server is stopping.
 */
export async function serveStream(
  ctx: Context & { state: AppState },
  deps: AppDeps,
  name: string,
  serve: (signal: ResponseSignal) => Promise<void>,
  slot: () => void = deps.streams.acquire(ctx.state.owner),
): Promise<void> {
  const { signal, release } = responseSignal(ctx.res, deps.shutdownSignal);
  const closed = deps.telemetry.metrics.streamOpened(name);
  try {
    ctx.respond = false;
    await serve(signal);
  } finally {
    closed();
    release();
    slot();
  }
}
