import type { Context, Next } from 'koa';
import { UnauthorizedError } from '../errors.js';
import type { AppState } from './app-deps.js';
import type { Authenticator } from './authenticate.js';
import { fillPath, type RouteDeclaration, type RouteKey } from './routes/route.js';
import type { StreamTokens } from './stream-token.js';

type AuthMiddleware = (
  ctx: Context & { state: AppState; params?: Record<string, string> },
  next: Next,
) => Promise<void>;

/**
 * Who is asking, as a route's declaration says it must be told (docs/protocol.md §6, §6.5), set in
 * `ctx.state.owner`: from the `Authorization` header when one is sent; otherwise, on a route that takes a
 * stream token (its `streamToken`), from a `?token=` issued for the resource its path names (401 when it is
 * bad, expired or for another); otherwise as `authenticator` decides for a request without credentials
 * (401 when keys are configured). A `token` on any other route is not read, so it grants nothing but the
 * one stream it was issued for.
 */
export function authenticateRoute(
  authenticator: Authenticator,
  tokens: StreamTokens,
  key: RouteKey,
  route: RouteDeclaration,
): AuthMiddleware | undefined {
  if (route.access !== 'key') return undefined;
  const byKey = authenticateRequest(authenticator);
  const issuer = route.streamToken;
  if (issuer === undefined) return byKey;
  return async (ctx, next) => {
    const token = ctx.get('Authorization') === '' ? ctx.query.token : undefined;
    if (token === undefined) return byKey(ctx, next);
    const params = ctx.params ?? {};
    const owner = typeof token === 'string' ? tokens.verify(token, fillPath(key, params)) : undefined;
    if (owner === undefined) {
      throw new UnauthorizedError(
        `The stream token is malformed, expired or was issued for another stream; get a new one with POST ${fillPath(issuer, params)}.`,
      );
    }
    ctx.state.owner = owner;
    await next();
  };
}

/**
 * Names the caller from the `Authorization` header, or as `authenticator` decides without one (401 when
 * keys are configured): the auth of every route that needs a key, and of every request no route matched,
 * so that without a key a path says nothing of whether it exists.
 */
export function authenticateRequest(authenticator: Authenticator): AuthMiddleware {
  return async (ctx, next) => {
    const header = ctx.get('Authorization');
    ctx.state.owner = authenticator.authenticate(header === '' ? undefined : header);
    await next();
  };
}
