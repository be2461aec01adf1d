import { ChatCompletionChunkSchema, ChatCompletionSchema } from '../../protocol/chat-completion.js';
import { ChatCompletionRequestSchema } from '../../protocol/chat-completion-request.js';
import { named, type RouteTable } from './route.js';
import { JSON_BODY_ERRORS, QUEUE_ERRORS, RUN_REQUEST_ERRORS } from './route-errors.js';
import { EventsQuerySchema } from './runs-routes.js';

/** `?agent_events=1` works here as on the events route: the typed events ride along in the stream. */
export const ChatQuerySchema = EventsQuerySchema.pick({ agent_events: true });

/**
 * The OpenAI-compatible door (docs/protocol.md §4.2): a chat completion request starts a run the way
 * `POST /v1/runs` does, and is answered as OpenAI answers it.
 */
export const CHAT_COMPLETION_ROUTES = {
  'POST /v1/chat/completions': {
    summary: 'OpenAI-compatible door: a chat completion that plays one episode',
    description:
      'The OpenAI request shape plus `env`, `task` and `max_turns` ([below](#post-v1chatcompletions)): it starts a run exactly as `POST /v1/runs` does (no `Idempotency-Key`), named in the `x-run-id` header and listed under `/v1/runs`. ' +
      "`stream: true` answers the run's `format=openai` stream (a run that fails mid-stream sends an error body frame before `[DONE]`); otherwise one `chat.completion` once the run has ended. " +
      'With `stream: true` a stream slot is taken before the run is made, so `too_many_streams` leaves no run behind.',
    access: 'key',
    query: ChatQuerySchema,
    body: { json: named('ChatCompletionRequest', ChatCompletionRequestSchema), required: true },
    answers: {
      200: {
        description: 'A `chat.completion`, or (`stream: true`) `chat.completion.chunk` frames then `data: [DONE]`.',
        json: named('ChatCompletion', ChatCompletionSchema),
        media: ['text/event-stream'],
        frames: named('ChatCompletionChunk', ChatCompletionChunkSchema),
        headers: { 'x-run-id': 'The id of the run this completion plays; it is listed under /v1/runs.' },
      },
    },
    errors: [...JSON_BODY_ERRORS, ...RUN_REQUEST_ERRORS, ...QUEUE_ERRORS, 'too_many_streams'],
    answersRunEnd:
      'Not streaming: a run that failed answers its code with 502 (500 for `internal_error`), a cancelled one 409 `cancelled` (`details.reason` says why).',
  },
} as const satisfies RouteTable;
