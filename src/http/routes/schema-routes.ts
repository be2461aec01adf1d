import Router from 'koa-router';
import type { AppState } from '../app-deps.js';
import { runEventsJsonSchema } from '../openapi/json-schemas.js';
import { openApiDocument } from '../openapi/openapi-document.js';

/**
 * `GET /v1/schema/events` (JSON Schema of every run event) and `GET /v1/openapi.json` (OpenAPI 3.1
 * of the whole HTTP API), both generated from the zod schemas the server runs on. Public, like
 * `/health`: they describe the API, not anyone's runs.
 */
export function schemaRoutes(): Router<AppState> {
  const router = new Router<AppState>();
  const eventsSchema = runEventsJsonSchema();
  router.get('/v1/schema/events', (ctx) => {
    ctx.body = eventsSchema;
  });
  router.get('/v1/openapi.json', (ctx) => {
    ctx.body = openApiDocument();
  });
  return router;
}
