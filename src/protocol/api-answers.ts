import { z } from 'zod';
import { ErrorCodeSchema } from './error-codes.js';
import { RunEventSchema } from './run-events.js';
import { RunListItemSchema, RunStatusSchema } from './run-snapshot.js';

/**
 * Schemas of the HTTP answers that have no schema of their own elsewhere in `src/protocol/` (their routes
 * build them inline). They describe those answers in the OpenAPI document; the schema-routes tests
 * validate the real answers against them, so a route that changes its answer breaks a test instead
 * of leaving the document wrong.
 */

/** The error body of docs/protocol.md §2, for every 4xx and 5xx. */
export const ErrorBodySchema = z.object({
  error: z.object({
    code: ErrorCodeSchema.describe(
      'What went wrong, one of the codes of src/protocol/error-codes.ts; docs/api.md (Errors) says when and with which status each is given. A client should take a code it does not know as the status says: a newer server may add codes.',
    ),
    message: z.string(),
    details: z.unknown().optional(),
  }),
});

/**
 * `GET /v1/runs`: one page of the caller's runs, newest first, each a snapshot whose waiting calls are
 * summarised (docs/protocol.md §2.6); `next` is the `after` of the next page.
 */
export const RunListSchema = z.object({
  data: z.array(RunListItemSchema),
  next: z.string().nullable(),
});

/** `GET /v1/runs/:id/events` with `Accept: application/json`: one page of the stored events. */
export const EventsPageSchema = z.object({
  run_id: z.string(),
  status: RunStatusSchema,
  data: z.array(RunEventSchema),
  last_seq: z.number().int(),
  has_more: z.boolean(),
  next_after: z.number().int().nullable(),
});

/** `POST /v1/runs/:id/cancel`. */
export const CancelAnswerSchema = z.object({
  run_id: z.string(),
  status: RunStatusSchema,
});

/** `POST /v1/runs/:id/messages`: the id of the message, which its `message.received` will carry. */
export const MessageAcceptedSchema = z.object({
  message_id: z.string(),
});

/** `POST /v1/runs/:id/stream-token`. */
export const StreamTokenAnswerSchema = z.object({
  token: z.string(),
  expires_at: z.number(),
  events_url: z.string(),
});

/** `POST /v1/rollouts/:id/stream-token`: the same token, for one batch's records (docs/protocol.md §6.5). */
export const RecordsStreamTokenAnswerSchema = StreamTokenAnswerSchema.omit({ events_url: true }).extend({
  records_url: z.string(),
});

/**
 * `GET /v1/models`, in OpenAI's list shape: the models a run may name, with the one a run that names none
 * plays, and the model servers asked what they serve that did not say (each listed by its default meanwhile).
 */
export const ModelListSchema = z.object({
  object: z.literal('list'),
  data: z.array(
    z.object({ id: z.string(), object: z.literal('model'), created: z.number().int(), owned_by: z.string() }),
  ),
  default: z.string(),
  unreachable: z.array(z.object({ provider: z.string(), error: z.string() })),
});

/**
 * `GET /v1/environments`: the environments a run may play, each with its splits (their ORS kind) and
 * how many tasks each holds, and the environment of requests that name none.
 */
export const EnvironmentListSchema = z.object({
  object: z.literal('list'),
  default: z.string(),
  data: z.array(
    z.object({
      id: z.string(),
      splits: z.array(z.object({ name: z.string(), type: z.string(), tasks: z.number().int().nonnegative() })),
    }),
  ),
});
/** The answer of `GET /v1/environments`. */
export type EnvironmentList = z.infer<typeof EnvironmentListSchema>;

/** Whether the ORS server answers, and what it said last when it did not. */
export const OrsHealthSchema = z.union([
  z.object({ status: z.literal('ok') }),
  z.object({ status: z.literal('unreachable'), error: z.string() }),
]);

/**
 * `GET /health`: the server is up (it answers 503 `store_unavailable` only when its store does not), with
 * its run counts, where runs are kept, whether the ORS server answers (a bridge may come up before it),
 * and which process answered: behind a balancer or `serve --workers N`, any of several.
 */
export const HealthSchema = z.object({
  status: z.enum(['ok', 'draining']),
  /** This instance's id in the shared store (Redis), as its lease and log lines name it; absent in memory. */
  instance: z.string().optional(),
  /** The process that answered. */
  pid: z.number().int().positive(),
  runs: z.object({
    running: z.number().int().nonnegative(),
    queued: z.number().int().nonnegative(),
    finished: z.number().int().nonnegative(),
    subscribers: z.number().int().nonnegative(),
  }),
  store: z.enum(['memory', 'redis']),
  ors: OrsHealthSchema,
});

/** `GET /ready`: 200 once the store and the ORS server answer and the server is not draining. */
export const ReadySchema = z.object({ status: z.literal('ready') });
