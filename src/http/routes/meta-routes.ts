import { z } from 'zod';
import { HealthSchema, ReadySchema } from '../../protocol/api-answers.js';
import { named, type RouteTable } from './route.js';
import { STORE_ERRORS } from './route-errors.js';

/** Any JSON document: what the schema routes answer is described by its own standard, not here. */
const JsonDocument = named('JsonDocument', z.record(z.string(), z.unknown()));
const unchanged = { description: 'Unchanged since the ETag in If-None-Match.' };

/**
 * What is not the API itself: liveness and readiness, metrics, the API's own description, and the chat
 * page. All but `/metrics` are open to all: they say nothing about anyone's runs (docs/protocol.md §6.4).
 */
export const META_ROUTES = {
  'GET /health': {
    summary: 'Liveness: which instance and process answered, run counts, the store, whether the ORS server answers',
    description:
      '503 `store_unavailable` only while the store does not answer or refuses writes (Redis out of memory, read-only), its message saying which: then the server can serve nothing.',
    access: 'public',
    answers: { 200: { description: 'The server is up.', json: named('Health', HealthSchema) } },
    errors: STORE_ERRORS,
  },
  'GET /ready': {
    summary: 'Readiness: the store and the ORS server answer, and the server is not draining',
    description:
      'What a load balancer or an orchestrator waits for before sending traffic; `not_ready` comes with `Retry-After: 1` and `details` saying what does not answer.',
    access: 'public',
    answers: { 200: { description: 'Ready for traffic.', json: named('Ready', ReadySchema) } },
    errors: ['not_ready'],
  },
  'GET /metrics': {
    summary:
      "This instance's metrics in the Prometheus text format, or with `serve --workers N` every worker's on one page",
    description:
      'See [operations](operations.md#metrics). Its bearer token is `RUNBRIDGE_METRICS_TOKEN`, never an API key: with keys and no token every request is refused; with neither it is open, like the API.',
    access: 'metrics',
    mountedUnless: 'RUNBRIDGE_METRICS=0',
    answers: {
      200: { description: 'The metrics, in the Prometheus text exposition format 0.0.4.', media: ['text/plain'] },
    },
    errors: [],
  },
  'GET /v1/schema/events': {
    summary: 'JSON Schema of every run event',
    description: 'Draft 2020-12: `oneOf` the events, each under `$defs` by its type.',
    access: 'public',
    answers: { 200: { description: 'The JSON Schema.', json: JsonDocument } },
    errors: [],
  },
  'GET /v1/openapi.json': {
    summary: 'The OpenAPI 3.1 document of the whole API',
    description: 'Generated, as this table is, from the routes’ declarations and the error table.',
    access: 'public',
    answers: { 200: { description: 'OpenAPI 3.1.', json: JsonDocument } },
    errors: [],
  },
  'GET /': {
    summary: 'The [chat page](ui.md)',
    description: 'With a strict Content-Security-Policy and an ETag.',
    access: 'public',
    mountedUnless: 'RUNBRIDGE_UI=0',
    answers: {
      200: { description: 'The page.', media: ['text/html'] },
      304: unchanged,
      503: {
        description: 'The bridge runs from a clone whose page was never built (`npm run build`).',
        media: ['text/html'],
      },
    },
    errors: [],
  },
  'GET /ui/:file': {
    summary: "The chat page's scripts, styles and fonts",
    access: 'public',
    mountedUnless: 'RUNBRIDGE_UI=0',
    params: z.object({ file: z.string().describe('A file of the build of the page.') }),
    answers: { 200: { description: 'The file.', media: ['any'] }, 304: unchanged },
    errors: ['not_found'],
  },
} as const satisfies RouteTable;
