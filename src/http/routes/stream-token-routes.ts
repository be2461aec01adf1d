import Router from 'koa-router';
import { z } from 'zod';
import type { AppDeps, AppState } from '../app-deps.js';
import { parseInput } from '../parse-input.js';
import { readJsonBody } from '../read-json-body.js';
import type { StreamTokens } from '../stream-token.js';

/** The answer of `POST /v1/runs/:id/stream-token`. */
export interface StreamTokenAnswer {
  token: string;
  /** Epoch seconds after which the token opens no new stream (a stream already open runs on). */
  expires_at: number;
  /** The run's events URL with the token in it, ready for `new EventSource(…)`. */
  events_url: string;
}

/** The route takes no options; an empty body or `{}` is all it accepts, like every strict body here. */
const StreamTokenRequestSchema = z.strictObject({});

/**
 * `POST /v1/runs/:id/stream-token` (docs/protocol.md §6, "Auth"): for a caller holding the bearer key, a
 * short-lived token that opens that one run's events stream as `?token=` — for browsers, whose
 * EventSource cannot send an `Authorization` header. Another key's run is 404, as everywhere.
 */
export function streamTokenRoutes(deps: AppDeps, tokens: StreamTokens): Router<AppState> {
  const router = new Router<AppState>();
  router.post('/v1/runs/:id/stream-token', async (ctx) => {
    parseInput(StreamTokenRequestSchema, await readJsonBody(ctx.req, deps.config.maxBodyBytes), 'stream token request');
    const run = await deps.registry.snapshot(ctx.params.id!, ctx.state.owner);
    const issued = tokens.issue(run.run_id, ctx.state.owner);
    ctx.set('Cache-Control', 'no-store');
    ctx.body = {
      token: issued.token,
      expires_at: issued.expiresAt / 1000,
      events_url: `/v1/runs/${run.run_id}/events?token=${encodeURIComponent(issued.token)}`,
    } satisfies StreamTokenAnswer;
  });
  return router;
}
