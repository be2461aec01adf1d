import type { Context, Next } from 'koa';
import type { z } from 'zod';
import { RunbridgeError } from '../errors.js';
import type { Redactor } from '../ors/client/redactor.js';
import type { ErrorBodySchema } from '../protocol/api-answers.js';
import { ERROR_CODES } from '../protocol/error-codes.js';
import type { Logger } from '../telemetry/logger.js';

/** The error body of docs/protocol.md §2. */
export type ErrorBody = z.infer<typeof ErrorBodySchema>;

/** The error body (docs/protocol.md §2) of `error`: its code and message, and its details when it has any. */
export function errorBody(error: RunbridgeError): ErrorBody {
  const body: ErrorBody = { error: { code: error.code, message: error.message } };
  if (error.details !== undefined) body.error.details = error.details;
  return body;
}

/**
 * Turns any error thrown before the response started into the error body with the
 * right status (and `Retry-After` where the error says when to come back: a 429, a 503). Unknown errors are a 500 with a generic message: their
 * text may hold internals, so it goes to the log, not the caller. After the first byte of a
 * response (an SSE stream) there is nothing to answer; the stream's own code ends it. `redactor` cuts
 * the bridge's own secrets out of every error body: some quote what the ORS server said.
 */
export function errorMiddleware(logger: Logger, redactor?: Redactor) {
  const log = (error: unknown) => logger.error({ err: error }, 'request failed');
  return async (ctx: Context, next: Next): Promise<void> => {
    try {
      await next();
      if (ctx.status === 404 && ctx.body === undefined && ctx.respond !== false) {
        answer(ctx, {
          error: { code: 'not_found', message: `No route ${ctx.method} ${ctx.path}. See GET /v1/openapi.json.` },
        });
      }
    } catch (error) {
      if (ctx.headerSent || ctx.respond === false) {
        if (!ctx.res.writableEnded) ctx.res.destroy();
        return;
      }
      // Answered before the body was read in full (a 413, a 401 to a large upload): the connection
      // ends after the answer, so the rest of the body is not read for nothing.
      if (!ctx.req.complete) ctx.set('Connection', 'close');
      if (error instanceof RunbridgeError) {
        if (error.retryAfterSeconds !== undefined) ctx.set('Retry-After', String(error.retryAfterSeconds));
        // Only our own failures go to the log: a 502 (a run's model or ORS server failed) or a 503
        // (draining) is an expected answer, already told to the caller and kept in the run's log.
        if (error.status === 500) log(error);
        const body = errorBody(error);
        answer(ctx, redactor && !redactor.empty ? redactor.value(body) : body, error.status);
        return;
      }
      const status = httpStatusOf(error);
      if (status !== undefined && status < 500) {
        // Koa's own refusals keep their status (`invalid_request` is otherwise a 400).
        answer(ctx, { error: { code: 'invalid_request', message: (error as Error).message } }, status);
        return;
      }
      log(error);
      answer(ctx, {
        error: { code: 'internal_error', message: 'Internal server error; the details are in the server log.' },
      });
    }
  };
}

function answer(ctx: Context, body: ErrorBody, status: number = ERROR_CODES[body.error.code].status): void {
  ctx.status = status;
  ctx.body = body;
}

/** The status of an error thrown by Koa itself or a library following http-errors. */
function httpStatusOf(error: unknown): number | undefined {
  if (error !== null && typeof error === 'object' && 'status' in error && typeof error.status === 'number') {
    return error.status >= 400 && error.status < 600 ? error.status : undefined;
  }
  return undefined;
}
