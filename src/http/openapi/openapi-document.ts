import type { z } from 'zod';
import { PACKAGE_VERSION } from '../../package-version.js';
import {
  CancelAnswerSchema,
  EnvironmentListSchema,
  ErrorBodySchema,
  EventsPageSchema,
  HealthSchema,
  MessageAcceptedSchema,
  ModelListSchema,
  ReadySchema,
  RunListSchema,
  StreamTokenAnswerSchema,
} from '../../protocol/api-answers.js';
import { ChatCompletionChunkSchema, ChatCompletionSchema } from '../../protocol/chat-completion.js';
import { ChatCompletionRequestSchema } from '../../protocol/chat-completion-request.js';
import { CONFIRM_WAIT_SECONDS } from '../../protocol/confirm-wait.js';
import { DecisionRequestSchema } from '../../protocol/decision-request.js';
import { MessageRequestSchema } from '../../protocol/message-request.js';
import { RunEventSchema, ToolApprovalResolvedEventSchema } from '../../protocol/run-events.js';
import { RunRequestSchema } from '../../protocol/run-request.js';
import { RunCreatedSchema, RunSnapshotSchema } from '../../protocol/run-snapshot.js';
import { RolloutRequestSchema } from '../../rollouts/rollout-request.js';
import {
  RolloutCancelAnswerSchema,
  RolloutCreatedSchema,
  RolloutListSchema,
  RolloutSnapshotSchema,
} from '../../rollouts/rollout-snapshot.js';
import { STREAM_FORMATS } from '../formats/stream-formats.js';
import { ChatQuerySchema } from '../routes/chat-completions-routes.js';
import { EventsQuerySchema, ListQuerySchema } from '../routes/runs-routes.js';
import { type JsonSchema, namedJsonSchemas, runEventTypes } from './json-schemas.js';
import { errors, json, queryParameters, unauthorized } from './openapi-parts.js';
import { rolloutPaths } from './rollout-paths.js';

/**
 * `GET /v1/openapi.json`: an OpenAPI 3.1 document of the whole HTTP API. Every body and answer
 * schema is generated from the zod schema the server validates or builds it with, and the query
 * parameters from the routes' own query schemas, so the document cannot drift from the code; what is
 * written by hand is the list of routes, their statuses and their prose.
 */

/** `run.started` → `RunStartedEvent`. */
function eventComponentName(type: string): string {
  return `${type
    .split('.')
    .map((word) => word[0]!.toUpperCase() + word.slice(1))
    .join('')}Event`;
}

function components(): Record<string, JsonSchema> {
  // Bodies a client sends are described as it writes them: a field with a default is optional there.
  const requests: Array<readonly [string, z.ZodType]> = [
    ['RunRequest', RunRequestSchema],
    ['DecisionRequest', DecisionRequestSchema],
    ['MessageRequest', MessageRequestSchema],
    ['ChatCompletionRequest', ChatCompletionRequestSchema],
    ['RolloutRequest', RolloutRequestSchema],
  ];
  const answers: Array<readonly [string, z.ZodType]> = [
    ['RunCreated', RunCreatedSchema],
    ['RunSnapshot', RunSnapshotSchema],
    ['RunList', RunListSchema],
    ['EventsPage', EventsPageSchema],
    ['CancelAnswer', CancelAnswerSchema],
    ['StreamTokenAnswer', StreamTokenAnswerSchema],
    ['ApprovalResolved', ToolApprovalResolvedEventSchema],
    ['MessageAccepted', MessageAcceptedSchema],
    ['RunEvent', RunEventSchema],
    ...runEventTypes().map(([type, schema]) => [eventComponentName(type), schema] as const),
    ['ChatCompletion', ChatCompletionSchema],
    ['ChatCompletionChunk', ChatCompletionChunkSchema],
    ['ModelList', ModelListSchema],
    ['EnvironmentList', EnvironmentListSchema],
    ['Health', HealthSchema],
    ['Ready', ReadySchema],
    ['ErrorBody', ErrorBodySchema],
    ['RolloutCreated', RolloutCreatedSchema],
    ['RolloutSnapshot', RolloutSnapshotSchema],
    ['RolloutList', RolloutListSchema],
    ['RolloutCancelAnswer', RolloutCancelAnswerSchema],
  ];
  const uri = (name: string) => `#/components/schemas/${name}`;
  return { ...namedJsonSchemas(requests, uri, 'input'), ...namedJsonSchemas(answers, uri) };
}

const runIdParameter = {
  name: 'id',
  in: 'path',
  required: true,
  description: 'The run id (`run_…`).',
  schema: { type: 'string' },
};
const notFound = {
  404: 'No such run for this key: it never existed, was forgotten, or belongs to another key (`run_not_found`).',
};
const runIdHeader = {
  'x-run-id': {
    description: 'The id of the run this completion plays; it is listed under /v1/runs.',
    schema: { type: 'string' },
  },
};
const tooManyStreams = {
  429: 'As many event streams are open as the server holds, in all or for this key; see `Retry-After` (`too_many_streams`).',
};
const startErrors = {
  400: 'Invalid body, unknown key, bad task or unknown model.',
  ...unauthorized,
  404: 'Unknown environment (`unknown_env`).',
  413: 'The body is larger than RUNBRIDGE_MAX_BODY_BYTES.',
  415: 'The body is not sent as JSON; without API keys, a POST of any kind without a JSON content type, an empty one included (`unsupported_media_type`).',
  429: 'The run may not wait: the queue or the queued bytes are full (`queue_full`), the key holds its share of the queue (`key_queue_full`), or stored runs hold their byte budget (`store_full`); see `Retry-After`.',
  502: 'The ORS server could not be reached, failed, refused the request, or answered nonsense, while the environment and task were checked (`ors_unavailable`, `ors_server_error`, `ors_request_rejected`, `ors_bad_response`).',
  503: 'The server is shutting down (`draining`), or its shared store (Redis) cannot be reached (`store_unavailable`).',
};

function paths(): Record<string, unknown> {
  const formats = Object.keys(STREAM_FORMATS).join(', ');
  return {
    '/': {
      get: {
        summary: 'The chat page (docs/ui.md); not mounted with RUNBRIDGE_UI=0',
        security: [],
        responses: {
          200: { description: 'The page.', content: { 'text/html': { schema: { type: 'string' } } } },
          304: { description: 'Unchanged since the ETag in If-None-Match.' },
          503: {
            description: 'The bridge runs from a clone whose page was never built (`npm run build`).',
            content: { 'text/html': { schema: { type: 'string' } } },
          },
        },
      },
    },
    '/ui/{file}': {
      get: {
        summary: "The chat page's scripts, styles and fonts; not mounted with RUNBRIDGE_UI=0",
        security: [],
        parameters: [{ name: 'file', in: 'path', required: true, schema: { type: 'string' } }],
        responses: {
          200: { description: 'The file.' },
          304: { description: 'Unchanged since the ETag in If-None-Match.' },
          ...errors({ 404: 'No such file in the build of the page.' }),
        },
      },
    },
    '/health': {
      get: {
        summary: 'Liveness: run counts, the store, whether the ORS server answers',
        security: [],
        responses: {
          200: { description: 'The server is up.', content: json('Health') },
          503: { description: 'The store does not answer (`store_unavailable`).', content: json('ErrorBody') },
        },
      },
    },
    '/ready': {
      get: {
        summary: 'Readiness: the store and the ORS server answer',
        security: [],
        responses: {
          200: { description: 'Ready for traffic.', content: json('Ready') },
          503: {
            description: 'The store or the ORS server does not answer, or the server is draining (`not_ready`).',
            content: json('ErrorBody'),
          },
        },
      },
    },
    '/metrics': {
      get: {
        summary:
          "This instance's metrics in the Prometheus text format, or every worker's with serve --workers N (docs/operations.md#metrics)",
        description:
          'Absent (404) with `RUNBRIDGE_METRICS=0`. Its bearer token is `RUNBRIDGE_METRICS_TOKEN`, never an API key: ' +
          'with keys and no token every request is refused; with neither it is open, like the API.',
        responses: {
          200: {
            description: 'The metrics, in the Prometheus text exposition format 0.0.4.',
            content: { 'text/plain; version=0.0.4; charset=utf-8': { schema: { type: 'string' } } },
          },
          ...errors({
            401: 'Keys or a metrics token are configured and the request does not carry the metrics token.',
          }),
        },
      },
    },
    '/v1/schema/events': {
      get: {
        summary: 'JSON Schema of every run event',
        security: [],
        responses: {
          200: {
            description: 'A JSON Schema (draft 2020-12): oneOf the events, each under $defs by its type.',
            content: { 'application/json': { schema: { type: 'object' } } },
          },
        },
      },
    },
    '/v1/openapi.json': {
      get: {
        summary: 'This document',
        security: [],
        responses: {
          200: { description: 'OpenAPI 3.1.', content: { 'application/json': { schema: { type: 'object' } } } },
        },
      },
    },
    '/v1/models': {
      get: {
        summary: 'Models the bridge can drive',
        description:
          "What `model` of POST /v1/runs may name: an OpenAI-compatible server's own list (cached for 30 s) or `OPENAI_MODELS`, each provider's default otherwise; `default`, the model of requests that name none; `unreachable`, the servers that did not say what they serve.",
        responses: {
          200: { description: 'OpenAI list shape; ids are `provider:name`.', content: json('ModelList') },
          ...errors(unauthorized),
        },
      },
    },
    '/v1/environments': {
      get: {
        summary: 'Environments a run may play, with their splits and task counts',
        description:
          'What `env` and `task` of POST /v1/runs may name, as the ORS server lists them (cached for 30 s), and `default`, the environment of requests that name none.',
        responses: {
          200: { description: "The environments, in the ORS server's order.", content: json('EnvironmentList') },
          ...errors({
            ...unauthorized,
            502: 'The ORS server could not be reached or answered nonsense (`ors_unavailable`, `ors_bad_response`).',
          }),
        },
      },
    },
    '/v1/runs': {
      post: {
        summary: 'Start a run in the background',
        parameters: [
          {
            name: 'Idempotency-Key',
            in: 'header',
            required: false,
            description: 'The same key with the same body answers the existing run (200); with another body, 409.',
            schema: { type: 'string', minLength: 1, maxLength: 255 },
          },
        ],
        requestBody: { required: false, content: json('RunRequest') },
        responses: {
          202: {
            description: 'Started (or queued).',
            headers: { Location: { description: '/v1/runs/{id}', schema: { type: 'string' } } },
            content: json('RunCreated'),
          },
          200: { description: 'The run this Idempotency-Key started before.', content: json('RunCreated') },
          ...errors({
            ...startErrors,
            409: 'The Idempotency-Key was used with another body (`idempotency_conflict`).',
          }),
        },
      },
      get: {
        summary: "List the caller's runs, newest first",
        parameters: queryParameters(ListQuerySchema, {
          after: 'A run id: list the runs created before it (`next` of the previous page).',
        }),
        responses: {
          200: { description: 'One page.', content: json('RunList') },
          ...errors({
            400: 'Bad query, or an `after` run that is unknown or was forgotten (`invalid_cursor`).',
            ...unauthorized,
          }),
        },
      },
    },
    '/v1/runs/{id}': {
      parameters: [runIdParameter],
      get: {
        summary: 'Status snapshot',
        responses: {
          200: { description: 'The snapshot.', content: json('RunSnapshot') },
          ...errors({ ...unauthorized, ...notFound }),
        },
      },
      delete: {
        summary: 'Forget a finished run',
        responses: {
          204: { description: 'Forgotten.' },
          ...errors({ ...unauthorized, ...notFound, 409: 'The run is still queued or running (`run_active`).' }),
        },
      },
    },
    '/v1/runs/{id}/events': {
      parameters: [runIdParameter],
      get: {
        summary: 'The event stream, or the stored events as JSON pages',
        description:
          `Server-Sent Events in the chosen format (${formats}); with \`Accept: application/json\` one page of the stored events. ` +
          'Resume with `Last-Event-ID` or `?after=` (the seq of the last event you have). The payload schema of `format=events` is at /v1/schema/events.',
        parameters: [
          ...queryParameters(EventsQuerySchema, {
            format: `One of: ${formats}. Default: events.`,
            after: 'Send the events with seq > after (-1: from the start).',
            limit: 'Page size of the JSON page.',
            agent_events:
              'format=openai: the typed events ride along as chunks with `choices: []` and an `agent_event` field.',
            token: 'A stream token from POST /v1/runs/{id}/stream-token, for clients that cannot send headers.',
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
            description: 'The stream (ends after the terminal event), or a JSON page.',
            content: { 'text/event-stream': { schema: { type: 'string' } }, ...json('EventsPage') },
          },
          204: {
            description:
              'The run has finished and the client has every event: nothing left to send (stops a browser EventSource).',
          },
          ...errors({
            400: 'Unknown format, or a cursor that is not a number or beyond the log.',
            ...unauthorized,
            ...notFound,
            ...tooManyStreams,
          }),
        },
      },
    },
    '/v1/runs/{id}/cancel': {
      parameters: [runIdParameter],
      post: {
        summary: 'Cancel; idempotent',
        responses: {
          202: {
            description: `The run as it ended: \`cancelled\`, or its own end when that came first. Answered once the run has ended, ${CONFIRM_WAIT_SECONDS} s at most; a run still going then is answered with its status then.`,
            content: json('CancelAnswer'),
          },
          ...errors({
            415: 'Without API keys: not sent as JSON (an empty body included).',
            ...unauthorized,
            ...notFound,
          }),
        },
      },
    },
    '/v1/runs/{id}/approvals/{approval_id}': {
      parameters: [
        runIdParameter,
        {
          name: 'approval_id',
          in: 'path',
          required: true,
          description:
            "The `approval_id` of a `tool.approval_required` event (also in the snapshot's `pending_approvals`).",
          schema: { type: 'string' },
        },
      ],
      post: {
        summary: 'Decide a tool call that waits for approval',
        description:
          'Approve (optionally with edited arguments, a JSON object the call then runs with) or deny (optionally with a reason the model is told). ' +
          "The first decision wins; the answer is the run's own tool.approval_resolved once the run has written it.",
        requestBody: { required: true, content: json('DecisionRequest') },
        responses: {
          200: {
            description: 'Decided: the tool.approval_resolved of this decision.',
            content: json('ApprovalResolved'),
          },
          ...errors({
            400: 'Invalid body: an unknown decision, arguments that are not a JSON object, arguments with a denial, unknown keys.',
            415: 'Not sent as JSON.',
            ...unauthorized,
            404: 'No such run for this key (`run_not_found`), or no such approval in it (`approval_not_found`).',
            409: 'Another decision, the timeout or the end of the run came first (`approval_resolved`), or the run ended without deciding it (`run_ended`).',
            413: 'The body is larger than RUNBRIDGE_MAX_BODY_BYTES.',
            503: `The run did not confirm the decision within ${CONFIRM_WAIT_SECONDS} s (\`decision_unconfirmed\`); read its events before sending it again.`,
          }),
        },
      },
    },
    '/v1/runs/{id}/messages': {
      parameters: [runIdParameter],
      post: {
        summary: 'Send a message into a running run',
        description:
          'The model reads it before its next turn (event message.received with the returned message_id); in chat mode (await_input) it ends the wait for input.',
        requestBody: { required: true, content: json('MessageRequest') },
        responses: {
          202: {
            description: 'Accepted: the run takes it in before its next model turn.',
            content: json('MessageAccepted'),
          },
          ...errors({
            400: 'Invalid body: empty text, parts that are not text or data: images, unknown keys.',
            415: 'Not sent as JSON.',
            ...unauthorized,
            ...notFound,
            409: 'The run has ended (`run_ended`) or is still queued (`run_not_started`).',
            413: 'The body is larger than RUNBRIDGE_MAX_BODY_BYTES.',
            429: 'As many messages wait for the model as a run holds (`too_many_messages`); send it once the model has read them.',
          }),
        },
      },
    },
    '/v1/runs/{id}/stream-token': {
      parameters: [runIdParameter],
      post: {
        summary: "A short-lived token that opens this run's events stream as ?token=",
        requestBody: {
          required: false,
          content: { 'application/json': { schema: { type: 'object', additionalProperties: false } } },
        },
        responses: {
          200: { description: 'The token and a ready events URL.', content: json('StreamTokenAnswer') },
          ...errors({
            400: 'A body with keys.',
            415: 'Without API keys: not sent as JSON (an empty body included).',
            ...unauthorized,
            ...notFound,
          }),
        },
      },
    },
    '/v1/chat/completions': {
      post: {
        summary: 'OpenAI-compatible front door: a chat completion that plays one episode',
        description:
          'The OpenAI request shape plus env, task and max_turns; the messages are the extra turns after the environment prompt (system and developer messages become the instructions). ' +
          "stream: true answers the run's format=openai stream; otherwise one chat.completion once the run has ended. The run is listed under /v1/runs (x-run-id).",
        parameters: queryParameters(ChatQuerySchema, {
          agent_events: 'stream: true: the typed events ride along as chunks with an `agent_event` field.',
        }),
        requestBody: { required: true, content: json('ChatCompletionRequest') },
        responses: {
          200: {
            description:
              'A chat.completion, or (stream: true) chat.completion.chunk frames (see ChatCompletionChunk) then `data: [DONE]`; a run that fails mid-stream sends an ErrorBody frame before [DONE].',
            headers: runIdHeader,
            content: { ...json('ChatCompletion'), 'text/event-stream': { schema: { type: 'string' } } },
          },
          ...errors({
            ...startErrors,
            429: `${startErrors[429]} With stream: true, also ${tooManyStreams[429]}`,
            409: 'Not streaming: the run was cancelled (`cancelled`; details.reason says why).',
            500: 'Not streaming: the run failed inside the bridge (`internal_error`).',
            502: 'Not streaming: the run failed at the model or the ORS server (the code says which).',
          }),
        },
      },
    },
    ...rolloutPaths(),
  };
}

let built: JsonSchema | undefined;

/** The document (built once: it depends on nothing but the code). */
export function openApiDocument(): JsonSchema {
  built ??= {
    openapi: '3.1.0',
    info: {
      title: 'runbridge',
      version: PACKAGE_VERSION,
      description:
        'Drives an LLM through an ORS (Open Reward Standard) environment episode and publishes every step as structured run events.',
    },
    jsonSchemaDialect: 'https://json-schema.org/draft/2020-12/schema',
    security: [{ bearerAuth: [] }],
    paths: paths(),
    components: {
      schemas: components(),
      securitySchemes: {
        bearerAuth: {
          type: 'http',
          scheme: 'bearer',
          description:
            'One of RUNBRIDGE_API_KEYS; not needed when none are configured (the server then listens on loopback only).',
        },
      },
    },
  };
  return built;
}
