import Koa from 'koa';
import type { AppDeps, AppState } from './app-deps.js';
import { errorMiddleware } from './error-middleware.js';
import { healthRoutes, modelsRoutes } from './routes/meta-routes.js';
import { runsRoutes } from './routes/runs-routes.js';

/** The Koa application of the bridge: error mapping, then `/health`, then auth, then the API. */
export function createApp(deps: AppDeps): Koa<AppState> {
  const app = new Koa<AppState>();
  app.silent = true;
  app.use(errorMiddleware(deps.log));
  app.use(healthRoutes(deps).routes());
  app.use(async (ctx, next) => {
    ctx.state.owner = deps.authenticator.authenticate(ctx.get('Authorization') || undefined);
    await next();
  });
  app.use(runsRoutes(deps).routes());
  app.use(modelsRoutes(deps).routes());
  return app;
}
