import Router from 'koa-router';
import type { EnvironmentList } from '../../protocol/api-answers.js';
import type { AppDeps, AppState } from '../app-deps.js';

/**
 * `GET /v1/environments`: what `env` and `task` of `POST /v1/runs` may name — the ORS server's
 * environments with their splits and task counts, and the default environment (docs/api.md).
 * A failing ORS server is a 502 with the ORS error's code.
 */
export function environmentsRoutes(deps: AppDeps): Router<AppState> {
  const router = new Router<AppState>();
  router.get('/v1/environments', async (ctx) => {
    ctx.body = {
      object: 'list',
      default: await deps.environments.defaultEnv(),
      data: await deps.environments.list(),
    } satisfies EnvironmentList;
  });
  return router;
}
