import { BadRequestError } from '../../errors.js';
import type { RunCreated } from '../../protocol/run-snapshot.js';
import type { EventLog } from '../../runs/event-log.js';
import { LogReader } from '../../runs/log-reader.js';
import { SSE_HEADERS } from '../../sse/sse-headers.js';
import { answerHead } from '../answer-head.js';
import type { AppDeps } from '../app-deps.js';
import { eventsPage } from '../events-page.js';
import { eventsFormat } from '../formats/events-format.js';
import { formatOptionsOf } from '../formats/stream-format.js';
import { STREAM_FORMATS, streamFormatNamed } from '../formats/stream-formats.js';
import { parseCursor } from '../parse-cursor.js';
import { fillPath } from '../routes/route.js';
import { RUN_ROUTES } from '../routes/runs-routes.js';
import { serveRunStream } from '../serve-run-stream.js';
import { idempotencyKeyOf, lastEventIdOf, type RouteHandlers, readBody, readQuery } from './route-handler.js';

/**
 * The runs' routes (docs/protocol.md §2, §3, §7): `RUN_ROUTES` but for the stream token, which
 * `streamTokenHandlers` issues.
 */
export function runsHandlers(deps: AppDeps): Omit<RouteHandlers<typeof RUN_ROUTES>, 'POST /v1/runs/:id/stream-token'> {
  const { registry, config } = deps;
  const routes = RUN_ROUTES;

  return {
    'POST /v1/runs': async (ctx) => {
      const body = await readBody(ctx, routes['POST /v1/runs'].body, config.maxBodyBytes, 'run request');
      const { record, status, created } = await registry.create(body, ctx.state.owner, idempotencyKeyOf(ctx));
      ctx.status = created ? 202 : 200;
      ctx.set('Location', fillPath('GET /v1/runs/:id', { id: record.id }));
      ctx.body = {
        run_id: record.id,
        status,
        events_url: fillPath('GET /v1/runs/:id/events', { id: record.id }),
        created_at: record.createdAt / 1000,
      } satisfies RunCreated;
    },

    'GET /v1/runs': async (ctx) => {
      ctx.body = await registry.list(ctx.state.owner, readQuery(ctx, routes['GET /v1/runs'].query));
    },

    'GET /v1/runs/:id': async (ctx) => {
      ctx.body = await registry.snapshot(ctx.params.id!, ctx.state.owner);
    },

    'DELETE /v1/runs/:id': async (ctx) => {
      await registry.delete(ctx.params.id!, ctx.state.owner);
      ctx.status = 204;
    },

    'POST /v1/runs/:id/cancel': async (ctx) => {
      const run = await registry.cancel(ctx.params.id!, ctx.state.owner);
      ctx.status = 202;
      ctx.body = { run_id: run.run_id, status: run.status };
    },

    'POST /v1/runs/:id/approvals/:approval_id': async (ctx) => {
      const route = routes['POST /v1/runs/:id/approvals/:approval_id'];
      const body = await readBody(ctx, route.body, config.maxBodyBytes, 'decision');
      ctx.body = await registry.person.decide(ctx.params.id!, ctx.state.owner, ctx.params.approval_id!, body);
    },

    'POST /v1/runs/:id/messages': async (ctx) => {
      const body = await readBody(ctx, routes['POST /v1/runs/:id/messages'].body, config.maxBodyBytes, 'message');
      ctx.status = 202;
      ctx.body = await registry.person.message(ctx.params.id!, ctx.state.owner, body.content);
    },

    'GET /v1/runs/:id/events': async (ctx) => {
      const run = await registry.open(ctx.params.id!, ctx.state.owner);
      const { log } = run;
      const query = readQuery(ctx, routes['GET /v1/runs/:id/events'].query);
      const cursor = parseCursor(lastEventIdOf(ctx), query.after);
      if (cursor > log.lastSeq) await logReaching(log, cursor, CURSOR_GRACE_MS);
      if (cursor > log.lastSeq) {
        throw new BadRequestError(
          `The cursor ${cursor} is beyond the log: the newest event of this run is seq ${log.lastSeq}.`,
          { code: 'invalid_cursor' },
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
    },
  };
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
