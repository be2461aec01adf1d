import type { z } from 'zod';
import { RunbridgeError } from '../../errors.js';
import type { HealthSchema, ReadySchema } from '../../protocol/api-answers.js';
import type { AppDeps } from '../app-deps.js';
import { runEventsJsonSchema } from '../openapi/json-schemas.js';
import { openApiDocument } from '../openapi/openapi-document.js';
import type { META_ROUTES } from '../routes/meta-routes.js';
import type { RouteHandlers } from './route-handler.js';
import { uiHandlers } from './ui-handlers.js';

/**
 * What is not the API itself. `/health` is liveness: 200 while the server serves — which instance and
 * process answered, its run counts, where runs are kept, and whether the ORS server answers (a bridge may
 * come up before it) — and 503 `store_unavailable` only while its store does not answer or refuses writes
 * (Redis out of memory), since then it can serve nothing. `/ready` is 200 once the store and the ORS
 * server both answer and the server is not draining, 503 `not_ready` saying which does not otherwise.
 * `/metrics` is there only while metrics are on, and takes `RUNBRIDGE_METRICS_TOKEN` alone, never an API
 * key (`MetricsAccess`). The schemas are generated from the zod schemas the server runs on; the chat page
 * only with `RUNBRIDGE_UI` on.
 */
export function metaHandlers(deps: AppDeps): RouteHandlers<typeof META_ROUTES> {
  const scrape = deps.telemetry.scrape;
  const eventsSchema = runEventsJsonSchema();
  return {
    'GET /health': async (ctx) => {
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
      } satisfies z.infer<typeof HealthSchema>;
    },
    'GET /ready': async (ctx) => {
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
      ctx.body = { status: 'ready' } satisfies z.infer<typeof ReadySchema>;
    },
    'GET /metrics':
      scrape &&
      (async (ctx) => {
        const header = ctx.get('Authorization');
        deps.metricsAccess.check(header === '' ? undefined : header);
        const { contentType, body } = await scrape();
        ctx.type = contentType;
        ctx.body = body;
      }),
    'GET /v1/schema/events': (ctx) => {
      ctx.body = eventsSchema;
    },
    'GET /v1/openapi.json': (ctx) => {
      ctx.body = openApiDocument();
    },
    ...uiHandlers(deps.ui),
  };
}
