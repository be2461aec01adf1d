import type { Context, Next } from 'koa';
import { customAlphabet } from 'nanoid';
import type { Telemetry } from '../telemetry/telemetry.js';
import { traceIdOf } from '../telemetry/trace-context.js';
import type { AppState } from './app-deps.js';

const newRequestId = customAlphabet('0123456789abcdefghijklmnopqrstuvwxyz', 20);

/** A caller's own `X-Request-Id` is kept when it is short and plain (it goes into every log line of the request). */
const CALLER_REQUEST_ID = /^[\w.:-]{1,128}$/;

/** Probes polled every few seconds: their lines are `debug`, so they do not bury the rest. */
const PROBES = new Set(['/health', '/ready', '/metrics']);

/**
 * The outermost middleware: gives each request an id (`X-Request-Id`, the caller's own when it sent
 * a plain one), runs an API request (`/v1/…`) as its trace's server span — in the caller's trace when
 * `joinsCallerTrace` trusts its key, else in one of its own linked to the caller's — and writes one
 * access line when it is done — for an event stream, when the stream ends: method, route pattern, path, the query
 * without its stream `token`, status, duration, request id, the caller's key label (`anonymous`
 * without a key), the run the route names (`run_id`) and, when tracing, the request's `trace_id`.
 * Never a header or the body.
 */
export function observeRequests(
  telemetry: Telemetry,
  joinsCallerTrace: (authorization: string | undefined) => boolean,
) {
  return async (ctx: Context & { state: AppState }, next: Next): Promise<void> => {
    const started = performance.now();
    const offered = ctx.get('X-Request-Id');
    const requestId = CALLER_REQUEST_ID.test(offered) ? offered : `req_${newRequestId()}`;
    ctx.set('X-Request-Id', requestId);
    const outcome = () => ({ route: routeOf(ctx), status: ctx.status });
    let traceId: string | undefined;
    try {
      if (ctx.path.startsWith('/v1/')) {
        const traced = () => {
          traceId = traceIdOf(telemetry.captureTrace());
          return next();
        };
        const request = { method: ctx.method, path: ctx.path, headers: ctx.headers, outcome };
        // Only a request that names a trace needs its caller judged.
        const joinCallerTrace =
          ctx.get('traceparent') !== '' && joinsCallerTrace(ctx.get('Authorization') || undefined);
        await telemetry.traceRequest({ ...request, joinCallerTrace }, traced);
      } else {
        await next();
      }
    } finally {
      const { route, status } = outcome();
      const query = queryWithoutToken(ctx.querystring);
      const runId = (ctx as { params?: Record<string, string> }).params?.id;
      const fields = {
        request_id: requestId,
        ...(runId?.startsWith('run_') ? { run_id: runId } : {}),
        ...(traceId === undefined ? {} : { trace_id: traceId }),
        method: ctx.method,
        route,
        path: ctx.path,
        ...(query === '' ? {} : { query }),
        status,
        duration_ms: Math.round(performance.now() - started),
        key: ctx.state.owner?.startsWith('key_') ? ctx.state.owner : 'anonymous',
      };
      if (status >= 500) telemetry.logger.warn(fields, 'request');
      else if (PROBES.has(ctx.path)) telemetry.logger.debug(fields, 'request');
      else telemetry.logger.info(fields, 'request');
    }
  };
}

/** The route pattern that served the request (`/v1/runs/:id`), if one did. */
function routeOf(ctx: Context): string | undefined {
  return (ctx as { _matchedRoute?: string | RegExp })._matchedRoute?.toString();
}

/** `querystring` without `token` (a stream token opens a run's events: it stays out of the logs). */
function queryWithoutToken(querystring: string): string {
  if (querystring === '') return '';
  const params = new URLSearchParams(querystring);
  params.delete('token');
  return params.toString();
}
