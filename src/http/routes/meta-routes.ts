import Router from 'koa-router';
import type { AppDeps, AppState } from '../app-deps.js';

/** `GET /v1/models` (OpenAI list shape). */
export function modelsRoutes(deps: AppDeps): Router<AppState> {
  const router = new Router<AppState>();
  const started = Math.floor(deps.now() / 1000);
  router.get('/v1/models', (ctx) => {
    ctx.body = {
      object: 'list',
      data: deps.models
        .list()
        .map((model) => ({ id: model.id, object: 'model', created: started, owned_by: model.provider })),
    };
  });
  return router;
}

/** `GET /health`: liveness plus run counts; open to all (it says nothing about any caller's runs). */
export function healthRoutes(deps: AppDeps): Router<AppState> {
  const router = new Router<AppState>();
  router.get('/health', async (ctx) => {
    // Within about a second: a stalled Redis makes /health say so rather than wait with it.
    await deps.registry.pingStore();
    ctx.body = { status: deps.registry.draining ? 'draining' : 'ok', runs: await deps.registry.stats() };
  });
  return router;
}
