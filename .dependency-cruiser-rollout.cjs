/**
 * What `runbridge rollout` and its worker threads load at start, checked on every `npm test` beside the
 * layering (`npm run lint:layers`): the imports that run when a module loads — neither `import type`,
 * which TypeScript drops, nor `import()`, which loads only when called. A thread takes as long to start
 * as its modules take to load, and a rollout needs neither the server nor the SDK of a model it does not
 * play (docs/rollouts.md, "Workers").
 */
const base = require('./.dependency-cruiser.cjs');

/** The command, and what one of its worker threads starts from: the thread's entry and the command's setup. */
const ROLLOUT = '^src/(commands/(rollout-command|set-up-rollout-worker)|rollouts/workers/rollout-worker)[.]ts$';

module.exports = {
  forbidden: [
    {
      name: 'rollout-without-the-server',
      comment:
        "runbridge rollout and its threads play episodes: no HTTP server, store, webhooks or operators' signals. " +
        'Koa only through the built-in ORS server, imported when no ORS_URL is set (src/connect-ors.ts). ' +
        'The route declarations (src/http/routes/) are data the client transport of `rollout --server` reads; ' +
        'the layering keeps them off every server package (no-server-in-the-client).',
      severity: 'error',
      from: { path: ROLLOUT },
      to: {
        path: [
          '^src/(main[.]ts|http/(?!routes/)|store/|webhooks/)',
          'node_modules/(koa|koa-router|@koa/cors|ioredis|prom-client|pino|pino-pretty|@opentelemetry/(?!api/))/',
        ],
        reachable: true,
      },
    },
    {
      name: 'rollout-loads-its-model-only',
      comment:
        'A model provider and its SDK load when the batch plays that provider (src/load-model-provider.ts), ' +
        'not with every rollout.',
      severity: 'error',
      from: { path: ROLLOUT },
      to: { path: '^adapters/models/', reachable: true },
    },
  ],
  options: { ...base.options, tsPreCompilationDeps: false, exclude: { dynamic: true } },
};
