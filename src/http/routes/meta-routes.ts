import Router from 'koa-router';
import type { z } from 'zod';
import { RunbridgeError } from '../../errors.js';
import type { HealthSchema, ModelListSchema, ReadySchema } from '../../protocol/api-answers.js';
import type { AppDeps, AppState } from '../app-deps.js';

type Health = z.infer<typeof HealthSchema>;
type Ready = z.infer<typeof ReadySchema>;
type ModelList = z.infer<typeof ModelListSchema>;

/**
 * `GET /v1/models`: OpenAI's list shape, with `default`, the model of requests that name none, and
 * `unreachable`, the model servers that were asked what they serve and did not say.
 */
export function modelsRoutes(deps: AppDeps): Router<AppState> {
  const router = new Router<AppState>();
  const started = Math.floor(deps.now() / 1000);
  router.get('/v1/models', async (ctx) => {
    const { models, defaultModel, unreachable } = await deps.models.list();
    ctx.body = {
      object: 'list',
      data: models.map((model) => ({ id: model.id, object: 'model', created: started, owned_by: model.provider })),
      default: defaultModel,
      unreachable,
    } satisfies ModelList;
  });
  return router;
}

/**
 * `GET /health` and `GET /ready`, open to all (they say nothing about any caller's runs). `/health` is
 * liveness: 200 while the server serves — which instance and process answered, its run counts, where runs
 * are kept, and whether the ORS server answers (a bridge may come up before it) — and 503 `store_unavailable` only while its store does not
 * answer or refuses writes (Redis out of memory), since then it can serve nothing. `/ready` is 200 once the store and the ORS server both answer
 * and the server is not draining, 503 `not_ready` saying which does not otherwise: what a load balancer
 * or an orchestrator waits for before sending traffic.
 */
export function healthRoutes(deps: AppDeps): Router<AppState> {
  const router = new Router<AppState>();
  router.get('/health', async (ctx) => {
    // Within about a second: a stalled Redis makes /health say so rather than wait with it.
    await deps.registry.pingStore();
    const [runs, ors] = await Promise.all([deps.registry.stats(), deps.environments.health()]);
    ctx.body = {
      status: deps.registry.draining ? 'draining' : 'ok',
      ...(deps.config.instance === undefined ? {} : { instance: deps.config.instance }),
      pid: process.pid,
      runs,
      store: deps.config.store,
      ors,
    } satisfies Health;
  });
  router.get('/ready', async (ctx) => {
    const [store, ors] = await Promise.all([
      deps.registry.pingStore().then(
        () => undefined,
        (error: unknown) => (error instanceof Error ? error.message : String(error)),
      ),
      deps.environments.health(),
    ]);
    const problems = [
      ...(deps.registry.draining ? ['the server is shutting down'] : []),
      ...(store === undefined ? [] : [`the store cannot serve: ${store}`]),
      ...(ors.status === 'ok' ? [] : [`the ORS server does not answer: ${ors.error}`]),
    ];
    if (problems.length > 0) {
      throw new RunbridgeError(`Not ready: ${problems.join('; ')}.`, {
        code: 'not_ready',
        details: problems,
        retryAfterSeconds: 1,
      });
    }
    ctx.body = { status: 'ready' } satisfies Ready;
  });
  return router;
}
