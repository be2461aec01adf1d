import Router from 'koa-router';
import { z } from 'zod';
import { BadRequestError } from '../../errors.js';
import { RECORD_FORMATS } from '../../rollouts/export/record-rows.js';
import { RolloutRequestSchema } from '../../rollouts/rollout-request.js';
import type { RolloutCreated } from '../../rollouts/rollout-snapshot.js';
import { SSE_HEADERS } from '../../sse/sse-headers.js';
import { answerHead } from '../answer-head.js';
import type { AppDeps, AppState } from '../app-deps.js';
import { parseCursor } from '../parse-cursor.js';
import { parseInput } from '../parse-input.js';
import { readJsonBody } from '../read-json-body.js';
import { serveRolloutRecords } from '../serve-rollout-records.js';
import { NDJSON_HEADERS } from '../stream-rollout-records.js';
import { IdempotencyKeySchema } from './runs-routes.js';

export const RolloutListQuerySchema = z.strictObject({
  limit: z.coerce.number().int().min(1).max(100).default(20),
  after: z.string().max(64).optional(),
});

export const RecordsQuerySchema = z.strictObject({
  /** `records` (the trajectory records themselves, the default) or an export's rows. */
  format: z.enum(RECORD_FORMATS).default('records'),
  after: z.string().max(32).optional(),
  /** A stream token (see `stream-token-routes.ts`); checked by the auth middleware. */
  token: z.string().max(512).optional(),
});

/**
 * `POST/GET /v1/rollouts`, `GET/DELETE /v1/rollouts/:id`, `/v1/rollouts/:id/cancel` and
 * `/v1/rollouts/:id/records` (docs/protocol.md §14): rollout batches on the runs' queue, scoped to the
 * caller's key like runs.
 */
export function rolloutsRoutes(deps: AppDeps): Router<AppState> {
  const { rollouts, config } = deps;
  const router = new Router<AppState>();

  router.post('/v1/rollouts', async (ctx) => {
    const body = parseInput(RolloutRequestSchema, await readJsonBody(ctx.req, config.maxBodyBytes), 'rollout request');
    const keyHeader = ctx.get('Idempotency-Key');
    const key = keyHeader === '' ? undefined : parseInput(IdempotencyKeySchema, keyHeader, 'Idempotency-Key header');
    const { snapshot, created } = await rollouts.create(body, ctx.state.owner, key);
    ctx.status = created ? 202 : 200;
    ctx.set('Location', `/v1/rollouts/${snapshot.rollout_id}`);
    ctx.body = {
      rollout_id: snapshot.rollout_id,
      status: snapshot.status,
      records_url: snapshot.records_url,
    } satisfies RolloutCreated;
  });

  router.get('/v1/rollouts', async (ctx) => {
    ctx.body = await rollouts.list(ctx.state.owner, parseInput(RolloutListQuerySchema, ctx.query, 'query'));
  });

  router.get('/v1/rollouts/:id', async (ctx) => {
    ctx.body = await rollouts.snapshot(ctx.params.id!, ctx.state.owner);
  });

  router.delete('/v1/rollouts/:id', async (ctx) => {
    await rollouts.delete(ctx.params.id!, ctx.state.owner);
    ctx.status = 204;
  });

  router.post('/v1/rollouts/:id/cancel', async (ctx) => {
    const snapshot = await rollouts.cancel(ctx.params.id!, ctx.state.owner);
    ctx.status = 202;
    ctx.body = { rollout_id: snapshot.rollout_id, status: snapshot.status };
  });

  router.get('/v1/rollouts/:id/records', async (ctx) => {
    const batch = await rollouts.open(ctx.params.id!, ctx.state.owner);
    const query = parseInput(RecordsQuerySchema, ctx.query, 'query');
    const lastEventId = ctx.get('Last-Event-ID');
    const after = parseCursor(lastEventId === '' ? undefined : lastEventId, query.after);
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
  });

  return router;
}
