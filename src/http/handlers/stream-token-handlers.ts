import type { z } from 'zod';
import type { RecordsStreamTokenAnswerSchema, StreamTokenAnswerSchema } from '../../protocol/api-answers.js';
import type { AppDeps } from '../app-deps.js';
import { ROLLOUT_ROUTES } from '../routes/rollouts-routes.js';
import { fillPath } from '../routes/route.js';
import { RUN_ROUTES } from '../routes/runs-routes.js';
import type { StreamTokens } from '../stream-token.js';
import { type RouteContext, type RouteHandlers, readBody } from './route-handler.js';

type RunTokenRoute = 'POST /v1/runs/:id/stream-token';
type BatchTokenRoute = 'POST /v1/rollouts/:id/stream-token';

/**
 * The stream-token routes (docs/protocol.md §6.5): for a caller holding the bearer key, a short-lived
 * token that opens one stream as `?token=` — a run's events, or a batch's records — for browsers, whose
 * EventSource cannot send an `Authorization` header. A token is bound to its stream's path, so it opens
 * that stream alone: a run's token no batch, a batch's no run. Another key's run or batch is 404, as
 * everywhere.
 */
export function streamTokenHandlers(
  deps: AppDeps,
  tokens: StreamTokens,
): Pick<RouteHandlers<typeof RUN_ROUTES>, RunTokenRoute> & Pick<RouteHandlers<typeof ROLLOUT_ROUTES>, BatchTokenRoute> {
  /** A token for `stream`, issued to the caller, and the stream's URL with it. */
  const issue = (ctx: RouteContext, stream: string) => {
    const issued = tokens.issue(stream, ctx.state.owner);
    ctx.set('Cache-Control', 'no-store');
    return {
      token: issued.token,
      expires_at: issued.expiresAt / 1000,
      url: `${stream}?token=${encodeURIComponent(issued.token)}`,
    };
  };
  return {
    'POST /v1/runs/:id/stream-token': async (ctx) => {
      await readBody(
        ctx,
        RUN_ROUTES['POST /v1/runs/:id/stream-token'].body,
        deps.config.maxBodyBytes,
        'stream token request',
      );
      const run = await deps.registry.snapshot(ctx.params.id!, ctx.state.owner);
      const { url, ...token } = issue(ctx, fillPath('GET /v1/runs/:id/events', { id: run.run_id }));
      ctx.body = { ...token, events_url: url } satisfies z.infer<typeof StreamTokenAnswerSchema>;
    },
    'POST /v1/rollouts/:id/stream-token': async (ctx) => {
      const route = ROLLOUT_ROUTES['POST /v1/rollouts/:id/stream-token'];
      await readBody(ctx, route.body, deps.config.maxBodyBytes, 'stream token request');
      const batch = await deps.rollouts.open(ctx.params.id!, ctx.state.owner);
      const { url, ...token } = issue(ctx, fillPath('GET /v1/rollouts/:id/records', { id: batch.record.id }));
      ctx.body = { ...token, records_url: url } satisfies z.infer<typeof RecordsStreamTokenAnswerSchema>;
    },
  };
}
