import type { Context, Next } from 'koa';
import { describeError } from './ors-http-errors.js';
import { OrsServerError } from './ors-server-error.js';

/**
 * Answers every failure before the first byte as the reference server (FastAPI) does: `{"detail": …}`
 * with the error's status (and `Retry-After` on a 429) — the 422 list for a body that does not fit, otherwise a message. An error
 * that is not an {@link OrsServerError} is a 500 carrying its `Name: message` (the reference's default),
 * and goes to `logError`. Routes that match nothing answer `{"detail": "Not Found"}` (404) or
 * `{"detail": "Method Not Allowed"}` (405). After an SSE stream has started there is nothing to answer.
 */
export function orsErrorMiddleware(logError: (message: string, error: unknown) => void) {
  return async (ctx: Context, next: Next): Promise<void> => {
    try {
      await next();
      const { status } = ctx;
      if (ctx.respond !== false && ctx.body == null && (status === 404 || status === 405)) {
        ctx.body = { detail: status === 404 ? 'Not Found' : 'Method Not Allowed' };
        // Koa turns an implicit 404 into 200 when a body is set; say the status again.
        ctx.status = status;
      }
    } catch (error) {
      if (ctx.respond === false || ctx.headerSent) {
        logError(`${ctx.method} ${ctx.path} failed after its response started`, error);
        if (!ctx.res.writableEnded) ctx.res.destroy();
        return;
      }
      if (error instanceof OrsServerError) {
        // A failed setup was logged once when it failed, and a 503 while shutting down is expected:
        // neither is news. Any other 5xx is a bug of ours or of an environment.
        if (error.status >= 500 && error.status !== 503 && error.code !== 'setup_failed')
          logError(`${ctx.method} ${ctx.path} failed`, error);
        if (error.retryAfterSeconds !== undefined) ctx.set('Retry-After', String(error.retryAfterSeconds));
        ctx.status = error.status;
        ctx.body = { detail: error.details ?? error.message };
        return;
      }
      logError(`${ctx.method} ${ctx.path} failed`, error);
      ctx.status = 500;
      ctx.body = { detail: describeError(error) };
    }
  };
}
