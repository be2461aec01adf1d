import { z } from 'zod';
import { RECORD_FORMATS } from '../../rollouts/export/record-rows.js';
import { RolloutRequestSchema } from '../../rollouts/rollout-request.js';
import {
  RolloutCancelAnswerSchema,
  RolloutCreatedSchema,
  RolloutListSchema,
  RolloutSnapshotSchema,
} from '../../rollouts/rollout-snapshot.js';
import { named, type RouteTable } from './route.js';
import { JSON_BODY_ERRORS, ORS_ERRORS, QUEUE_ERRORS, STORE_ERRORS } from './route-errors.js';
import { IdempotencyHeadersSchema, ResumeHeadersSchema, StreamTokenQuerySchema } from './runs-routes.js';

export const RolloutParamsSchema = z.object({ id: z.string().describe('The batch id (`ro_…`).') });

export const RolloutListQuerySchema = z.strictObject({
  limit: z.coerce.number().int().min(1).max(100).default(20),
  after: z
    .string()
    .max(64)
    .optional()
    .describe('A batch id: list the batches created before it (`next` of the previous page).'),
});

export const RecordsQuerySchema = z.strictObject({
  format: z
    .enum(RECORD_FORMATS)
    .default('records')
    .describe(`The records themselves, or an export's rows: one of ${RECORD_FORMATS.join(', ')}.`),
  after: z.string().max(32).optional().describe('Send what the records with seq > after make (-1: from the first).'),
  token: StreamTokenQuerySchema,
});

const RolloutCreated = named('RolloutCreated', RolloutCreatedSchema);
const rolloutNotFound = ['rollout_not_found', ...STORE_ERRORS] as const;

/**
 * Rollout batches (docs/protocol.md §14): on the runs' queue, scoped to the caller's key like runs, their
 * records streamed as they are settled.
 */
export const ROLLOUT_ROUTES = {
  'POST /v1/rollouts': {
    summary: 'Start a rollout batch: its (task, sample) pairs go onto the runs’ queue',
    description:
      'The body is the settings of `runbridge rollout`, checked by the same schema ([below](#rollout-batches)). An `Idempotency-Key` is looked up first: a retry of a batch that fills the queue is answered, not refused.',
    access: 'key',
    headers: IdempotencyHeadersSchema,
    body: { json: named('RolloutRequest', RolloutRequestSchema), required: true },
    answers: {
      202: {
        description: 'Stored, its pairs started or queued.',
        json: RolloutCreated,
        headers: { Location: '/v1/rollouts/{id}' },
      },
      200: { description: 'The batch this Idempotency-Key started before.', json: RolloutCreated },
    },
    errors: [
      ...JSON_BODY_ERRORS,
      'unknown_model',
      'unknown_env',
      'invalid_task',
      'batch_too_large',
      ...ORS_ERRORS,
      'idempotency_conflict',
      ...QUEUE_ERRORS,
    ],
  },
  'GET /v1/rollouts': {
    summary: "The caller's batches, newest first",
    access: 'key',
    query: RolloutListQuerySchema,
    answers: { 200: { description: 'One page.', json: named('RolloutList', RolloutListSchema) } },
    errors: ['invalid_request', 'invalid_cursor', ...STORE_ERRORS],
  },
  'GET /v1/rollouts/:id': {
    summary: 'The batch’s counts, statistics and configuration so far',
    access: 'key',
    params: RolloutParamsSchema,
    answers: { 200: { description: 'The snapshot.', json: named('RolloutSnapshot', RolloutSnapshotSchema) } },
    errors: rolloutNotFound,
  },
  'DELETE /v1/rollouts/:id': {
    summary: 'Forget an ended batch, its records and its pairs’ runs',
    access: 'key',
    params: RolloutParamsSchema,
    answers: { 204: { description: 'Forgotten.' } },
    errors: [...rolloutNotFound, 'rollout_active'],
  },
  'POST /v1/rollouts/:id/cancel': {
    summary: 'Cancel; idempotent: no pair is recorded from then on, and those not recorded are cancelled',
    access: 'key',
    params: RolloutParamsSchema,
    answers: {
      202: {
        description: 'Cancelled (or already ended).',
        json: named('RolloutCancelAnswer', RolloutCancelAnswerSchema),
      },
    },
    errors: rolloutNotFound,
  },
  'GET /v1/rollouts/:id/records': {
    summary: 'The trajectory records as they are settled (or an export’s rows), until the batch ends',
    description:
      'NDJSON by default, one record (the line `runbridge rollout` writes) per line, blank lines being keep-alives; with `Accept: text/event-stream`, SSE: one event per record whose id is its seq, and an `end` event `{rollout_id, status}` that closes it. ' +
      'Resume with `?after=` or `Last-Event-ID` (the seq of the last record held). `grpo` writes a task’s group once all its samples are in: in SSE one event (a data line per row) whose id is the seq of its last record.',
    access: 'key',
    params: RolloutParamsSchema,
    query: RecordsQuerySchema,
    headers: ResumeHeadersSchema,
    answers: {
      200: {
        description: 'The stream; it ends once the batch has ended and every record is out.',
        media: ['application/x-ndjson', 'text/event-stream'],
      },
      204: { description: 'SSE only: the batch has ended and the client has every record.' },
    },
    errors: ['invalid_request', 'invalid_cursor', ...rolloutNotFound, 'too_many_streams'],
  },
} as const satisfies RouteTable;
