import type { z } from 'zod';
import type { StreamTokenAnswerSchema } from '../../protocol/api-answers.js';
import type { AppDeps } from '../app-deps.js';
import { fillPath } from '../routes/route.js';
import { RUN_ROUTES } from '../routes/runs-routes.js';
import type { StreamTokens } from '../stream-token.js';
import { type RouteHandlers, readBody } from './route-handler.js';

/**
 * `POST /v1/runs/:id/stream-token` (docs/protocol.md §6.5): for a caller holding the bearer key, a
 * short-lived token that opens that one run's events stream as `?token=` — for browsers, whose
 * EventSource cannot send an `Authorization` header. Another key's run is 404, as everywhere.
 */
export function streamTokenHandlers(
  deps: AppDeps,
  tokens: StreamTokens,
): Pick<RouteHandlers<typeof RUN_ROUTES>, 'POST /v1/runs/:id/stream-token'> {
  return {
    'POST /v1/runs/:id/stream-token': async (ctx) => {
      const route = RUN_ROUTES['POST /v1/runs/:id/stream-token'];
      await readBody(ctx, route.body, deps.config.maxBodyBytes, 'stream token request');
      const run = await deps.registry.snapshot(ctx.params.id!, ctx.state.owner);
      const stream = fillPath('GET /v1/runs/:id/events', { id: run.run_id });
      const issued = tokens.issue(stream, ctx.state.owner);
      ctx.set('Cache-Control', 'no-store');
      ctx.body = {
        token: issued.token,
        expires_at: issued.expiresAt / 1000,
        events_url: `${stream}?token=${encodeURIComponent(issued.token)}`,
      } satisfies z.infer<typeof StreamTokenAnswerSchema>;
    },
  };
}
