import cors from '@koa/cors';
import type { Middleware } from 'koa';

/**
 * Request headers a browser client sends: the bearer key, JSON bodies, the SSE resume cursor (which
 * a page re-sending a stream by hand sets itself) and idempotency keys.
 */
const ALLOW_HEADERS = ['Authorization', 'Content-Type', 'Last-Event-ID', 'Idempotency-Key'];
/** Response headers a page may read: the run of a chat completion, where a new run lives, when to retry. */
const EXPOSE_HEADERS = ['x-run-id', 'Location', 'Retry-After'];

/**
 * CORS for the origins in `origins` (`RUNBRIDGE_CORS_ORIGINS`; `*` allows any, and start-up allows it
 * only with API keys), or undefined when
 * the list is empty — CORS is off by default. A request from another origin gets no CORS headers,
 * so the browser withholds the answer. No credentials mode: the API authenticates with a bearer
 * key the page holds, never with cookies. Mounted first, so error answers (401, 404) and SSE
 * streams, which merge headers set here into their own `writeHead`, carry the headers too.
 */
export function corsMiddleware(origins: readonly string[]): Middleware | undefined {
  if (origins.length === 0) return undefined;
  const allowed = new Set(origins.map((origin) => origin.replace(/\/+$/, '')));
  const any = allowed.has('*');
  return cors({
    origin: (ctx) => {
      const origin = ctx.get('Origin');
      if (any) return '*';
      return allowed.has(origin) ? origin : '';
    },
    allowMethods: ['GET', 'HEAD', 'POST', 'DELETE'],
    allowHeaders: ALLOW_HEADERS,
    exposeHeaders: EXPOSE_HEADERS,
    maxAge: 600,
    // Never: the API takes bearer keys, not cookies, and with credentials a reflected origin would
    // be handed answers made with whatever the user's browser holds for this host.
    credentials: false,
  });
}
