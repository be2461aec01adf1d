import Router from 'koa-router';
import { z } from 'zod';
import { BadRequestError } from '../../errors.js';
import { DecisionRequestSchema } from '../../protocol/decision-request.js';
import { MessageRequestSchema } from '../../protocol/message-request.js';
import { RunRequestSchema } from '../../protocol/run-request.js';
import { type RunCreated, RunStatusSchema } from '../../protocol/run-snapshot.js';
import type { EventLog } from '../../runs/event-log.js';
import { LogReader } from '../../runs/log-reader.js';
import { SSE_HEADERS } from '../../sse/sse-headers.js';
import { answerHead } from '../answer-head.js';
import type { AppDeps, AppState } from '../app-deps.js';
import { eventsPage } from '../events-page.js';
import { eventsFormat } from '../formats/events-format.js';
import { formatOptionsOf } from '../formats/stream-format.js';
import { STREAM_FORMATS, streamFormatNamed } from '../formats/stream-formats.js';
import { parseCursor } from '../parse-cursor.js';
import { parseInput } from '../parse-input.js';
import { readJsonBody } from '../read-json-body.js';
import { serveRunStream } from '../serve-run-stream.js';

export const ListQuerySchema = z.strictObject({
  status: RunStatusSchema.optional(),
  limit: z.coerce.number().int().min(1).max(100).default(20),
  after: z.string().max(64).optional(),
});

export const EventsQuerySchema = z.strictObject({
  format: z.string().max(32).optional(),
  after: z.string().max(32).optional(),
  limit: z.coerce.number().int().min(1).max(1000).default(100),
  agent_events: z.enum(['0', '1', 'true', 'false']).optional(),
  /** A stream token (see `stream-token-routes.ts`); checked by the auth middleware, listed here so it is not an unknown key. */
  token: z.string().max(512).optional(),
});

/** Idempotency keys are opaque to us, but they are stored, so they are bounded and printable. */
export const IdempotencyKeySchema = z
  .string()
  .min(1)
  .max(255)
  .regex(/^[\x21-\x7e]+$/, 'use 1–255 visible ASCII characters');

/**
 * `POST/GET /v1/runs`, `GET/DELETE /v1/runs/:id`, `/v1/runs/:id/events`, `/v1/runs/:id/cancel`
 * (docs/protocol.md §2, §3); `/v1/runs/:id/approvals/:approval_id` and `/v1/runs/:id/messages` (§7).
 */
export function runsRoutes(deps: AppDeps): Router<AppState> {
  const { registry, config } = deps;
  const router = new Router<AppState>();

  router.post('/v1/runs', async (ctx) => {
    const body = parseInput(RunRequestSchema, await readJsonBody(ctx.req, config.maxBodyBytes), 'run request');
    const keyHeader = ctx.get('Idempotency-Key');
    const key = keyHeader === '' ? undefined : parseInput(IdempotencyKeySchema, keyHeader, 'Idempotency-Key header');
    const { record, status, created } = await registry.create(body, ctx.state.owner, key);
    ctx.status = created ? 202 : 200;
    ctx.set('Location', `/v1/runs/${record.id}`);
    ctx.body = {
      run_id: record.id,
      status,
      events_url: `/v1/runs/${record.id}/events`,
      created_at: record.createdAt / 1000,
    } satisfies RunCreated;
  });

  router.get('/v1/runs', async (ctx) => {
    const query = parseInput(ListQuerySchema, ctx.query, 'query');
    ctx.body = await registry.list(ctx.state.owner, query);
  });

  router.get('/v1/runs/:id', async (ctx) => {
    ctx.body = await registry.snapshot(ctx.params.id!, ctx.state.owner);
  });

  router.delete('/v1/runs/:id', async (ctx) => {
    await registry.delete(ctx.params.id!, ctx.state.owner);
    ctx.status = 204;
  });

  router.post('/v1/runs/:id/cancel', async (ctx) => {
    const run = await registry.cancel(ctx.params.id!, ctx.state.owner);
    ctx.status = 202;
    ctx.body = { run_id: run.run_id, status: run.status };
  });

  router.post('/v1/runs/:id/approvals/:approval_id', async (ctx) => {
    const body = parseInput(DecisionRequestSchema, await readJsonBody(ctx.req, config.maxBodyBytes), 'decision');
    ctx.body = await registry.person.decide(ctx.params.id!, ctx.state.owner, ctx.params.approval_id!, body);
  });

  router.post('/v1/runs/:id/messages', async (ctx) => {
    const body = parseInput(MessageRequestSchema, await readJsonBody(ctx.req, config.maxBodyBytes), 'message');
    ctx.status = 202;
    ctx.body = await registry.person.message(ctx.params.id!, ctx.state.owner, body.content);
  });

  router.get('/v1/runs/:id/events', async (ctx) => {
    const run = await registry.open(ctx.params.id!, ctx.state.owner);
    const { log } = run;
    const query = parseInput(EventsQuerySchema, ctx.query, 'query');
    const lastEventId = ctx.get('Last-Event-ID');
    const cursor = parseCursor(lastEventId === '' ? undefined : lastEventId, query.after);
    if (cursor > log.lastSeq) await logReaching(log, cursor, CURSOR_GRACE_MS);
    if (cursor > log.lastSeq) {
      throw new BadRequestError(
        `The cursor ${cursor} is beyond the log: the newest event of this run is seq ${log.lastSeq}.`,
        {
          code: 'invalid_cursor',
        },
      );
    }

    const format = streamFormatNamed(query.format ?? 'events');
    if (!format) {
      throw new BadRequestError(
        `Unknown format "${query.format}". Formats: ${Object.keys(STREAM_FORMATS).join(', ')}.`,
        { code: 'unknown_format' },
      );
    }

    // A page holds typed events, so a format that is only a stream wins over the Accept header: the
    // openai SDKs send `Accept: application/json` with every request, their streams included.
    if (format === eventsFormat && wantsJson(ctx.get('Accept'))) {
      // Answered as a stream is: a page its client does not read holds a slot until it is sent.
      ctx.res.once('close', deps.streams.acquire(ctx.state.owner));
      ctx.type = 'application/json';
      ctx.body = eventsPage(run, cursor, query.limit, config.subscriberBufferBytes);
      return;
    }

    if (log.terminal && cursor >= log.lastSeq) {
      // Nothing left to send: 204 also tells a browser EventSource to stop reconnecting.
      ctx.status = 204;
      return;
    }
    if (answerHead(ctx, { ...SSE_HEADERS, ...format.headers })) return;

    await serveRunStream(ctx, deps, run, format, formatOptionsOf(query), cursor);
  });

  return router;
}

/**
 * How long a cursor past the log of a running run waits for the log to reach it. The instance
 * executing a run serves each event before it is stored, so a client resuming on another instance
 * (whose copy of the log follows the store) may name an event this copy does not hold yet.
 */
const CURSOR_GRACE_MS = 2_000;

/** Resolves once `log` holds the event `seq`, has ended, or `graceMs` passed, whichever comes first. */
async function logReaching(log: EventLog, seq: number, graceMs: number): Promise<void> {
  const reader = new LogReader(log, graceMs);
  try {
    while (log.lastSeq < seq && !log.terminal) {
      if ((await reader.wait(log.length)) !== 'appended') return;
    }
  } finally {
    reader.close();
  }
}

/** True when the caller asked for JSON rather than an event stream. */
function wantsJson(accept: string): boolean {
  return /\bapplication\/json\b/i.test(accept) && !/\btext\/event-stream\b/i.test(accept);
}
