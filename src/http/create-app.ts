import Koa from 'koa';
import Router from 'koa-router';
import { bridgeSecretRedactor } from '../runs/run-data-redactor.js';
import type { AppDeps, AppState } from './app-deps.js';
import { authenticateRequest } from './authenticate-request.js';
import { callerTraceTrust } from './caller-trace-trust.js';
import { corsMiddleware } from './cors-middleware.js';
import { errorMiddleware } from './error-middleware.js';
import { loopbackOnly } from './loopback-only.js';
import { observeRequests } from './observe-requests.js';
import { chatCompletionsRoutes } from './routes/chat-completions-routes.js';
import { environmentsRoutes } from './routes/environments-routes.js';
import { healthRoutes, modelsRoutes } from './routes/meta-routes.js';
import { metricsRoutes } from './routes/metrics-routes.js';
import { rolloutsRoutes } from './routes/rollouts-routes.js';
import { runsRoutes } from './routes/runs-routes.js';
import { schemaRoutes } from './routes/schema-routes.js';
import { streamTokenRoutes } from './routes/stream-token-routes.js';
import { uiRoutes } from './routes/ui-routes.js';
import { StreamTokens } from './stream-token.js';

/**
 * The Koa application of the bridge: the request's id, span and access line, CORS (when configured),
 * error mapping, the loopback guard (without keys), then what is open to all (`/health`, the schemas,
 * the chat page), `/metrics` with its own keys, then auth, then the API.
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
  app.use(
    joinedRoutes([
      healthRoutes(deps),
      metricsRoutes(deps),
      // The API's own description is public, like /health: it says nothing about anyone's runs.
      schemaRoutes(),
      // The chat page holds no data; it asks for the key itself when the API wants one (docs/ui.md).
      ...(deps.ui ? [uiRoutes(deps.ui)] : []),
    ]),
  );
  const streamTokens = new StreamTokens({
    ttlMs: deps.config.streamTokenTtlMs,
    now: deps.now,
    ...(deps.streamTokenSecret ? { secret: deps.streamTokenSecret } : {}),
  });
  app.use(authenticateRequest(deps.authenticator, streamTokens));
  app.use(
    joinedRoutes([
      runsRoutes(deps),
      rolloutsRoutes(deps),
      streamTokenRoutes(deps, streamTokens),
      chatCompletionsRoutes(deps),
      modelsRoutes(deps),
      environmentsRoutes(deps),
    ]),
  );
  return app;
}

/**
 * One router holding the routes of `routers`, in order (koa-router copies a router's routes into the
 * one it is `use`d by). Mounted apart, every router a request passed read its host and path again and
 * scanned its own routes: five for a run's event stream, about 15 µs of its way through the app
 * (`bench/profiling-log.md`).
 */
function joinedRoutes(routers: ReadonlyArray<Router<AppState>>): Router.IMiddleware<AppState> {
  const joined = new Router<AppState>();
  for (const router of routers) joined.use(router.routes());
  return joined.routes();
}
