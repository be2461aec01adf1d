import type { Context, Next } from 'koa';
import { UnauthorizedError } from '../errors.js';
import type { AppState } from './app-deps.js';
import type { Authenticator } from './authenticate.js';
import type { StreamTokens } from './stream-token.js';

/** The one route a stream token opens: a run's events (SSE or the JSON page). */
const EVENTS_PATH = /^\/v1\/runs\/([^/]+)\/events$/;

/**
 * Names the caller of every API request in `ctx.state.owner`: from the `Authorization` header when
 * one is sent; otherwise, on `GET /v1/runs/:id/events` only, from a `?token=` stream token issued for
 * that run (401 when it is bad, expired or for another run); otherwise as `authenticator` decides
 * for a request without credentials (401 when keys are configured). A `token` anywhere else is
 * ignored, so it grants nothing but that one run's stream.
 */
export function authenticateRequest(authenticator: Authenticator, tokens: StreamTokens) {
  return async (ctx: Context & { state: AppState }, next: Next): Promise<void> => {
    const header = ctx.get('Authorization');
    const token = header === '' ? ctx.query.token : undefined;
    // Only a token needs the run its request names; most requests carry none.
    const runId = token === undefined ? undefined : eventsRunId(ctx);
    if (runId !== undefined && token !== undefined) {
      const owner = typeof token === 'string' ? tokens.verify(token, runId) : undefined;
      if (owner === undefined) {
        throw new UnauthorizedError(
          `The stream token is malformed, expired or was issued for another run; get a new one with POST /v1/runs/${runId}/stream-token.`,
        );
      }
      ctx.state.owner = owner;
    } else {
      ctx.state.owner = authenticator.authenticate(header === '' ? undefined : header);
    }
    await next();
  };
}

/** The run id of an events request, decoded as the router decodes it, or undefined for any other request. */
function eventsRunId(ctx: Context): string | undefined {
  if (ctx.method !== 'GET' && ctx.method !== 'HEAD') return undefined;
  const match = EVENTS_PATH.exec(ctx.path);
  if (!match) return undefined;
  try {
    return decodeURIComponent(match[1]!);
  } catch {
    return undefined;
  }
}
