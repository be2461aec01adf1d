import { BadRequestError } from '../../errors.js';
import type { RolloutCreated } from '../../rollouts/rollout-snapshot.js';
import { SSE_HEADERS } from '../../sse/sse-headers.js';
import { answerHead } from '../answer-head.js';
import type { AppDeps } from '../app-deps.js';
import { parseCursor } from '../parse-cursor.js';
import { ROLLOUT_ROUTES } from '../routes/rollouts-routes.js';
import { fillPath } from '../routes/route.js';
import { serveRolloutRecords } from '../serve-rollout-records.js';
import { NDJSON_HEADERS } from '../stream-rollout-records.js';
import { idempotencyKeyOf, lastEventIdOf, type RouteHandlers, readBody, readQuery } from './route-handler.js';

/**
 * `/v1/rollouts` (docs/protocol.md §14): rollout batches on the runs' queue, scoped to the caller's key
 * like runs; `ROLLOUT_ROUTES` but for the stream token, which `streamTokenHandlers` issues.
 */
export function rolloutsHandlers(
  deps: AppDeps,
): Omit<RouteHandlers<typeof ROLLOUT_ROUTES>, 'POST /v1/rollouts/:id/stream-token'> {
  const { rollouts, config } = deps;
  const routes = ROLLOUT_ROUTES;

  return {
    'POST /v1/rollouts': async (ctx) => {
      const body = await readBody(ctx, routes['POST /v1/rollouts'].body, config.maxBodyBytes, 'rollout request');
      const { snapshot, created } = await rollouts.create(body, ctx.state.owner, idempotencyKeyOf(ctx));
      ctx.status = created ? 202 : 200;
      ctx.set('Location', fillPath('GET /v1/rollouts/:id', { id: snapshot.rollout_id }));
      ctx.body = {
        rollout_id: snapshot.rollout_id,
        status: snapshot.status,
        records_url: snapshot.records_url,
      } satisfies RolloutCreated;
    },

    'GET /v1/rollouts': async (ctx) => {
      ctx.body = await rollouts.list(ctx.state.owner, readQuery(ctx, routes['GET /v1/rollouts'].query));
    },

    'GET /v1/rollouts/:id': async (ctx) => {
      ctx.body = await rollouts.snapshot(ctx.params.id!, ctx.state.owner);
    },

    'DELETE /v1/rollouts/:id': async (ctx) => {
      await rollouts.delete(ctx.params.id!, ctx.state.owner);
      ctx.status = 204;
    },

    'POST /v1/rollouts/:id/cancel': async (ctx) => {
      const snapshot = await rollouts.cancel(ctx.params.id!, ctx.state.owner);
      ctx.status = 202;
      ctx.body = { rollout_id: snapshot.rollout_id, status: snapshot.status };
    },

    'GET /v1/rollouts/:id/records': async (ctx) => {
      const batch = await rollouts.open(ctx.params.id!, ctx.state.owner);
      const query = readQuery(ctx, routes['GET /v1/rollouts/:id/records'].query);
      const after = parseCursor(lastEventIdOf(ctx), query.after);
      if (after > batch.records - 1) {
        throw new BadRequestError(
          `The cursor ${after} is beyond the records: this batch has ${batch.records} so far (seq 0 to ${batch.records - 1}).`,
          { code: 'invalid_cursor' },
        );
      }
      const sse = (ctx.get('Accept') ?? '').includes('text/event-stream');
      if (sse && batch.finishedAt !== null && after >= batch.records - 1) {
        // Nothing left to send: 204 also tells a browser EventSource to stop reconnecting.
        ctx.status = 204;
        return;
      }
      if (answerHead(ctx, sse ? SSE_HEADERS : NDJSON_HEADERS)) return;
      await serveRolloutRecords(ctx, deps, batch, query.format, sse, after);
    },
  };
}
