import { RECORD_FORMATS } from '../../rollouts/export/record-rows.js';
import { RecordsQuerySchema, RolloutListQuerySchema } from '../routes/rollouts-routes.js';
import { errors, json, queryParameters, unauthorized } from './openapi-parts.js';

const idParameter = {
  name: 'id',
  in: 'path',
  required: true,
  description: 'The batch id (`ro_…`).',
  schema: { type: 'string' },
};
const notFound = {
  404: 'No such batch for this key: it never existed, was forgotten, or belongs to another key (`rollout_not_found`).',
};

/** The routes of `/v1/rollouts` (docs/protocol.md §14) in the OpenAPI document. */
export function rolloutPaths(): Record<string, unknown> {
  const formats = RECORD_FORMATS.join(', ');
  return {
    '/v1/rollouts': {
      post: {
        summary: 'Start a rollout batch: its (task, sample) pairs go onto the runs’ queue',
        parameters: [
          {
            name: 'Idempotency-Key',
            in: 'header',
            required: false,
            description: 'The same key with the same body answers the existing batch (200); with another body, 409.',
            schema: { type: 'string', minLength: 1, maxLength: 255 },
          },
        ],
        requestBody: { required: true, content: json('RolloutRequest') },
        responses: {
          202: {
            description: 'Stored, its pairs started or queued.',
            headers: { Location: { description: '/v1/rollouts/{id}', schema: { type: 'string' } } },
            content: json('RolloutCreated'),
          },
          200: { description: 'The batch this Idempotency-Key started before.', content: json('RolloutCreated') },
          ...errors({
            400: 'Invalid body or unknown key, an unknown split, tasks out of range (`invalid_task`), more pairs than the queue could ever hold of the key (`batch_too_large`), samples 0 or above 100 000, or an unknown model.',
            ...unauthorized,
            404: 'Unknown environment (`unknown_env`).',
            409: 'The Idempotency-Key was used with another batch (`idempotency_conflict`).',
            413: 'The body is larger than RUNBRIDGE_MAX_BODY_BYTES.',
            415: 'The body is not sent as JSON.',
            429: 'Its pairs would not fit in the queue now, or the key’s share of it (`queue_full`, or a refusal of the queue’s own as a run gets it), or the stored runs and batches hold their bytes (`key_store_full`, `store_full`); see `Retry-After`.',
            502: 'The ORS server could not be reached or answered nonsense while the tasks were checked.',
            503: 'The server is shutting down (`draining`), or its shared store cannot be reached (`store_unavailable`).',
          }),
        },
      },
      get: {
        summary: "List the caller's batches, newest first",
        parameters: queryParameters(RolloutListQuerySchema, {
          after: 'A batch id: list the batches created before it (`next` of the previous page).',
        }),
        responses: {
          200: { description: 'One page.', content: json('RolloutList') },
          ...errors({ 400: 'Bad query, or an `after` batch that is unknown (`invalid_cursor`).', ...unauthorized }),
        },
      },
    },
    '/v1/rollouts/{id}': {
      parameters: [idParameter],
      get: {
        summary: 'The batch’s counts, statistics and configuration so far',
        responses: {
          200: { description: 'The snapshot.', content: json('RolloutSnapshot') },
          ...errors({ ...unauthorized, ...notFound }),
        },
      },
      delete: {
        summary: 'Forget an ended batch, its records and its pairs’ runs',
        responses: {
          204: { description: 'Forgotten.' },
          ...errors({ ...unauthorized, ...notFound, 409: 'The batch has not ended (`rollout_active`).' }),
        },
      },
    },
    '/v1/rollouts/{id}/cancel': {
      parameters: [idParameter],
      post: {
        summary: 'Cancel; idempotent. No pair is recorded from then on; those not recorded are cancelled',
        responses: {
          202: { description: 'Cancelled (or already ended).', content: json('RolloutCancelAnswer') },
          ...errors({ 415: 'Without API keys: not sent as JSON.', ...unauthorized, ...notFound }),
        },
      },
    },
    '/v1/rollouts/{id}/records': {
      parameters: [idParameter],
      get: {
        summary: 'The trajectory records as they are settled (or an export’s rows), until the batch ends',
        description:
          'NDJSON by default, one record (the line `runbridge rollout` writes) per line, blank lines being keep-alives; with `Accept: text/event-stream`, SSE: one event per record whose id is its seq, and an `end` event with the batch’s status. ' +
          'Resume with `?after=` or `Last-Event-ID` (the seq of the last record you have). `grpo` writes a task’s group once all its samples are in: in SSE one event (a data line per row) whose id is the seq of its last record.',
        parameters: [
          ...queryParameters(RecordsQuerySchema, {
            format: `One of: ${formats}. Default: records.`,
            after: 'Send what the records with seq > after make (-1: from the first).',
            token: 'A stream token, for clients that cannot send headers.',
          }),
          {
            name: 'Last-Event-ID',
            in: 'header',
            required: false,
            description: 'Wins over ?after=.',
            schema: { type: 'string' },
          },
        ],
        responses: {
          200: {
            description: 'The stream (ends once the batch has ended and every record is out).',
            content: {
              'application/x-ndjson': { schema: { type: 'string' } },
              'text/event-stream': { schema: { type: 'string' } },
            },
          },
          204: { description: 'SSE only: the batch has ended and the client has every record.' },
          ...errors({
            400: 'Unknown format, or a cursor that is not a number or beyond the records (`invalid_cursor`).',
            ...unauthorized,
            ...notFound,
            429: 'As many streams are open as the server holds, in all or for this key (`too_many_streams`).',
          }),
        },
      },
    },
  };
}
