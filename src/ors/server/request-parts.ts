import type { Context } from 'koa';
import { missingSessionId } from './ors-http-errors.js';

/** The `:env` path parameter of an environment route (the router matches only paths that have one). */
export function envParam(params: Record<string, string>): string {
  return params.env ?? '';
}

/** The session id a request carries in `X-Session-ID`, trimmed, or undefined when there is none. */
export function sessionIdOf(ctx: Pick<Context, 'get'>): string | undefined {
  const id = ctx.get('X-Session-ID').trim();
  return id === '' ? undefined : id;
}

/** The request's session id; throws 400 without one, before anything else about the request is looked at. */
export function requireSessionId(ctx: Pick<Context, 'get'>): string {
  const id = sessionIdOf(ctx);
  if (id === undefined) throw missingSessionId();
  return id;
}
