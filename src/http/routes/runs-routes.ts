import { z } from 'zod';
import {
  CancelAnswerSchema,
  EventsPageSchema,
  MessageAcceptedSchema,
  RunListSchema,
  StreamTokenAnswerSchema,
} from '../../protocol/api-answers.js';
import { DecisionRequestSchema } from '../../protocol/decision-request.js';
import { MessageRequestSchema } from '../../protocol/message-request.js';
import { RunEventSchema, ToolApprovalResolvedEventSchema } from '../../protocol/run-events.js';
import { RunRequestSchema } from '../../protocol/run-request.js';
import { RunCreatedSchema, RunSnapshotSchema, RunStatusSchema } from '../../protocol/run-snapshot.js';
import { named, type RouteTable } from './route.js';
import { JSON_BODY_ERRORS, QUEUE_ERRORS, RUN_REQUEST_ERRORS, STORE_ERRORS } from './route-errors.js';
import { STREAM_FORMAT_NAMES } from './stream-format-names.js';

/** Idempotency keys are opaque to us, but they are stored, so they are bounded and printable. */
export const IdempotencyKeySchema = z
  .string()
  .min(1)
  .max(255)
  .regex(/^[\x21-\x7e]+$/, 'use 1–255 visible ASCII characters');

/** The `Idempotency-Key` header of a request that starts something (docs/protocol.md §2.1). */
export const IdempotencyHeadersSchema = z.object({
  'Idempotency-Key': IdempotencyKeySchema.optional().describe(
    'The same key with the same body answers what it started before (200); with another body, 409.',
  ),
});

/** The `Last-Event-ID` header a stream resumes with. */
export const ResumeHeadersSchema = z.object({
  'Last-Event-ID': z.string().optional().describe('The seq of the last event (or record) held; wins over ?after=.'),
});

/** A stream token in the query: the auth middleware reads it, the query schema lists it so it is no unknown key. */
export const StreamTokenQuerySchema = z
  .string()
  .max(512)
  .optional()
  .describe('A stream token, for clients that cannot send headers (a browser EventSource).');

export const RunParamsSchema = z.object({ id: z.string().describe('The run id (`run_…`).') });

export const ListQuerySchema = z.strictObject({
  status: RunStatusSchema.optional(),
  limit: z.coerce.number().int().min(1).max(100).default(20),
  after: z
    .string()
    .max(64)
    .optional()
    .describe('A run id: list the runs created before it (`next` of the previous page).'),
});

export const EventsQuerySchema = z.strictObject({
  format: z
    .string()
    .max(32)
    .optional()
    .describe(`One of: ${STREAM_FORMAT_NAMES.join(', ')}. Default: events.`),
  after: z.string().max(32).optional().describe('Send the events with seq > after (-1: from the start).'),
  limit: z.coerce.number().int().min(1).max(1000).default(100).describe('Page size of the JSON page.'),
  agent_events: z
    .enum(['0', '1', 'true', 'false'])
    .optional()
    .describe('format=openai: the typed events ride along as chunks with `choices: []` and an `agent_event` field.'),
  token: StreamTokenQuerySchema,
});

/** The route takes no options; an empty body or `{}` is all it accepts, like every strict body here. */
export const EmptyRequestSchema = z.strictObject({});

const RunCreated = named('RunCreated', RunCreatedSchema);
const RunSnapshot = named('RunSnapshot', RunSnapshotSchema);
const runNotFound = ['run_not_found', ...STORE_ERRORS] as const;

/**
 * The runs (docs/protocol.md §2, §3): start, list, read, forget, cancel and follow them; a person in the
 * loop decides their calls and sends them messages (§7); a stream token opens one run's events (§6.5).
 */
export const RUN_ROUTES = {
  'POST /v1/runs': {
    summary: 'Start a run in the background',
    access: 'key',
    headers: IdempotencyHeadersSchema,
    body: { json: named('RunRequest', RunRequestSchema), required: false },
    answers: {
      202: {
        description: 'Started, or queued.',
        json: RunCreated,
        headers: { Location: '/v1/runs/{id}' },
      },
      200: { description: 'The run this Idempotency-Key started before.', json: RunCreated },
    },
    errors: [...JSON_BODY_ERRORS, ...RUN_REQUEST_ERRORS, 'idempotency_conflict', ...QUEUE_ERRORS],
  },
  'GET /v1/runs': {
    summary: "The caller's runs, newest first",
    description:
      'Each item is the snapshot with the waiting calls summarised (docs/protocol.md §2.6); `next` is the `after` of the next page, or null. An `after` run that is unknown or was forgotten is `invalid_cursor`: start again from the first page.',
    access: 'key',
    query: ListQuerySchema,
    answers: { 200: { description: 'One page.', json: named('RunList', RunListSchema) } },
    errors: ['invalid_request', 'invalid_cursor', ...STORE_ERRORS],
  },
  'GET /v1/runs/:id': {
    summary: 'The status snapshot',
    access: 'key',
    params: RunParamsSchema,
    answers: { 200: { description: 'The snapshot.', json: RunSnapshot } },
    errors: runNotFound,
  },
  'DELETE /v1/runs/:id': {
    summary: 'Forget a finished run',
    access: 'key',
    params: RunParamsSchema,
    answers: { 204: { description: 'Forgotten.' } },
    errors: [...runNotFound, 'run_active'],
  },
  'GET /v1/runs/:id/events': {
    summary: 'The event stream, or the stored events as JSON pages',
    description:
      'Server-Sent Events in the chosen format ([events](events.md)); resume with `Last-Event-ID` or `?after=` (the seq of the last event held). ' +
      'With `Accept: application/json` (and no `format` but `events`: a format that is only a stream wins over the header, which the openai SDKs send with every request) one page of the stored events: it stops at the event that passes `RUNBRIDGE_SUBSCRIBER_BUFFER_BYTES`, and holds a stream slot until it is sent. ' +
      'The payload schema of `format=events` is at `GET /v1/schema/events`.',
    access: 'key',
    streamToken: 'POST /v1/runs/:id/stream-token',
    params: RunParamsSchema,
    query: EventsQuerySchema,
    headers: ResumeHeadersSchema,
    answers: {
      200: {
        description: 'The stream (it ends after the terminal event), or a JSON page.',
        json: named('EventsPage', EventsPageSchema),
        media: ['text/event-stream'],
        frames: named('RunEvent', RunEventSchema),
      },
      204: {
        description:
          'The run has finished and the client has every event: nothing left to send (it stops a browser EventSource).',
      },
    },
    errors: ['invalid_request', 'invalid_cursor', 'unknown_format', ...runNotFound, 'too_many_streams'],
  },
  'POST /v1/runs/:id/cancel': {
    summary: 'Cancel; idempotent',
    access: 'key',
    params: RunParamsSchema,
    answers: {
      202: {
        description:
          'The run as it ended: `cancelled`, or its own end when that came first. Answered once the run has ended, 10 s at most; a run still going then is answered with its status then.',
        json: named('CancelAnswer', CancelAnswerSchema),
      },
    },
    errors: runNotFound,
  },
  'POST /v1/runs/:id/approvals/:approval_id': {
    summary: 'Decide a tool call that waits for approval',
    description:
      'Approve (optionally with edited arguments, a JSON object the call then runs with) or deny (optionally with a reason the model is told) ([below](#a-person-in-the-loop)). ' +
      "The first decision wins; the answer is the run's own `tool.approval_resolved` once the run has written it.",
    access: 'key',
    params: RunParamsSchema.extend({
      approval_id: z
        .string()
        .describe(
          "The `approval_id` of a `tool.approval_required` event (also in the snapshot's `pending_approvals`).",
        ),
    }),
    body: { json: named('DecisionRequest', DecisionRequestSchema), required: true },
    answers: {
      200: {
        description: 'Decided: the `tool.approval_resolved` of this decision.',
        json: named('ApprovalResolved', ToolApprovalResolvedEventSchema),
      },
    },
    errors: [
      ...JSON_BODY_ERRORS,
      ...runNotFound,
      'approval_not_found',
      'approval_resolved',
      'run_ended',
      'decision_unconfirmed',
    ],
  },
  'POST /v1/runs/:id/messages': {
    summary: 'Send a message the model reads before its next turn',
    description:
      'It joins the conversation as `message.received` with the returned `message_id` ([below](#a-person-in-the-loop)); in chat mode (`await_input`) it ends the wait for input.',
    access: 'key',
    params: RunParamsSchema,
    body: { json: named('MessageRequest', MessageRequestSchema), required: true },
    answers: {
      202: {
        description: 'Accepted: the run takes it in before its next model turn.',
        json: named('MessageAccepted', MessageAcceptedSchema),
      },
    },
    errors: [...JSON_BODY_ERRORS, ...runNotFound, 'run_ended', 'run_not_started', 'too_many_messages'],
  },
  'POST /v1/runs/:id/stream-token': {
    summary: "A short-lived token that opens this run's events without a header",
    description: 'See [Stream tokens](#stream-tokens); the answer carries `Cache-Control: no-store`.',
    access: 'key',
    params: RunParamsSchema,
    body: { json: named('StreamTokenRequest', EmptyRequestSchema), required: false },
    answers: {
      200: {
        description: 'The token and a ready events URL.',
        json: named('StreamTokenAnswer', StreamTokenAnswerSchema),
      },
    },
    errors: [...JSON_BODY_ERRORS, ...runNotFound],
  },
} as const satisfies RouteTable;
