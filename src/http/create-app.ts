import Koa from 'koa';
import { bridgeSecretRedactor } from '../runs/run-data-redactor.js';
import type { AppDeps, AppState } from './app-deps.js';
import { authenticateRequest, authenticateRoute } from './authenticate-request.js';
import { callerTraceTrust } from './caller-trace-trust.js';
import { corsMiddleware } from './cors-middleware.js';
import { errorMiddleware } from './error-middleware.js';
import { a2aHandlers } from './handlers/a2a-handlers.js';
import { catalogHandlers } from './handlers/catalog-handlers.js';
import { chatCompletionsHandlers } from './handlers/chat-completions-handlers.js';
import { metaHandlers } from './handlers/meta-handlers.js';
import { rolloutsHandlers } from './handlers/rollouts-handlers.js';
import type { RouteHandlers } from './handlers/route-handler.js';
import { runsHandlers } from './handlers/runs-handlers.js';
import { streamTokenHandlers } from './handlers/stream-token-handlers.js';
import { loopbackOnly } from './loopback-only.js';
import { mountRoutes } from './mount-routes.js';
import { observeRequests } from './observe-requests.js';
import { ROUTE_TABLE } from './routes/route-table.js';
import { StreamTokens } from './stream-token.js';

/**
 * The Koa application of the bridge: the request's id, span and access line, CORS (when configured),
 * error mapping, the loopback guard (without keys), then the routes of the route table, each behind
 * the auth its declaration names; a request no route matched needs a key all the same before it is
 * told there is no such route.
 */
export function createApp(deps: AppDeps): Koa<AppState> {
  const app = new Koa<AppState>();
  app.silent = true;
  app.use(observeRequests(deps.telemetry, callerTraceTrust(deps.config.tracing.traceparentTrust, deps.authenticator)));
  const cors = corsMiddleware(deps.config.corsOrigins);
  if (cors) app.use(cors);
  app.use(errorMiddleware(deps.telemetry.logger, bridgeSecretRedactor(deps.bridgeSecrets ?? [])));
  // Without keys, other web pages are the attackers left: no rebound names, no form posts.
  if (!deps.authenticator.required) app.use(loopbackOnly());
  const streamTokens = new StreamTokens({
    ttlMs: deps.config.streamTokenTtlMs,
    now: deps.now,
    ...(deps.streamTokenSecret ? { secret: deps.streamTokenSecret } : {}),
  });
  const handlers = {
    ...runsHandlers(deps),
    ...streamTokenHandlers(deps, streamTokens),
    ...chatCompletionsHandlers(deps),
    ...catalogHandlers(deps),
    ...metaHandlers(deps),
    ...rolloutsHandlers(deps),
    ...a2aHandlers(deps),
  } satisfies RouteHandlers<typeof ROUTE_TABLE>;
  app.use(
    mountRoutes(ROUTE_TABLE, handlers, (key, route) => authenticateRoute(deps.authenticator, streamTokens, key, route)),
  );
  app.use(authenticateRequest(deps.authenticator));
  return app;
}
