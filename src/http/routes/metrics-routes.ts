import Router from 'koa-router';
import type { AppDeps, AppState } from '../app-deps.js';

/**
 * `GET /metrics`: this instance's metrics in the Prometheus text format (docs/operations.md#metrics), or
 * in a worker of `serve --workers N` every worker's; mounted only while metrics are on. It takes
 * `RUNBRIDGE_METRICS_TOKEN` alone, never an API key (`MetricsAccess`).
 */
export function metricsRoutes(deps: AppDeps): Router<AppState> {
  const router = new Router<AppState>();
  const scrape = deps.telemetry.scrape;
  if (scrape === undefined) return router;
  router.get('/metrics', async (ctx) => {
    const header = ctx.get('Authorization');
    deps.metricsAccess.check(header === '' ? undefined : header);
    const { contentType, body } = await scrape();
    ctx.type = contentType;
    ctx.body = body;
  });
  return router;
}
