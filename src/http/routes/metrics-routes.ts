import Router from 'koa-router';
import type { AppDeps, AppState } from '../app-deps.js';

/**
 * `GET /metrics`: this instance's metrics in the Prometheus text format (docs/operations.md#metrics),
 * mounted only while metrics are on. With API keys or `RUNBRIDGE_METRICS_TOKEN` configured it takes
 * `Authorization: Bearer` with either; with neither it is open, like the API (on loopback only).
 */
export function metricsRoutes(deps: AppDeps): Router<AppState> {
  const router = new Router<AppState>();
  const scrape = deps.telemetry.scrape;
  if (scrape === undefined) return router;
  router.get('/metrics', async (ctx) => {
    const header = ctx.get('Authorization');
    deps.metricsAuthenticator.authenticate(header === '' ? undefined : header);
    const { contentType, body } = await scrape();
    ctx.type = contentType;
    ctx.body = body;
  });
  return router;
}
