import type { RunCreated, RunSnapshot } from '../protocol/run-snapshot.js';
import { type ClientTransport, send, sendForJson } from './client-transport.js';
import type {
  AnyRunEvent,
  ApprovalResolved,
  CancelAnswer,
  MessageAccepted,
  MessageContent,
  RunListQuery,
  RunPage,
  RunRequest,
  StreamToken,
} from './client-types.js';
import { type ReconnectOptions, type RunEventsOptions, streamRunEvents } from './run-event-stream.js';

/** Options every request takes. */
export interface RequestOptions {
  /** Aborting it cancels the request, which then rejects with the signal's reason. */
  signal?: AbortSignal;
}

/** Options of `runs.create`. */
export interface CreateRunOptions extends RequestOptions {
  /**
   * Sent as `Idempotency-Key`: the same key with the same body answers the run it already started
   * instead of starting another, so a create can be sent again after a lost answer; another body is a 409.
   */
  idempotencyKey?: string;
}

/** Options of `runs.approve`. */
export interface ApproveOptions extends RequestOptions {
  /** Run the call with these arguments instead of the model's (a JSON object). */
  arguments?: Record<string, unknown>;
}

/** Options of `runs.deny`. */
export interface DenyOptions extends RequestOptions {
  /** Why: the model is told. */
  reason?: string;
}

/** The runs of the bridge (`/v1/runs`, docs/api.md): each method is one request, typed from the server's schemas. */
export interface RunsApi {
  /** Starts a run in the background and resolves to its id, status and events URL as soon as it is queued. */
  create(request?: RunRequest, options?: CreateRunOptions): Promise<RunCreated>;
  /** The run's status snapshot: status, turns, usage, reward, output, error and the seq of its last event. */
  get(runId: string, options?: RequestOptions): Promise<RunSnapshot>;
  /** One page of this key's runs, newest first; pass the page's `next` as `after` for the next page (null at the end). */
  list(query?: RunListQuery, options?: RequestOptions): Promise<RunPage>;
  /** Cancels the run; idempotent, and a finished run just answers its final status. */
  cancel(runId: string, options?: RequestOptions): Promise<CancelAnswer>;
  /** Forgets a finished run; a queued or running one is a {@link ConflictError}. */
  delete(runId: string, options?: RequestOptions): Promise<void>;
  /**
   * Approves a tool call that waits for a decision (its `approval_id` is in `tool.approval_required`
   * and the snapshot's `pending_approvals`), optionally with edited `arguments`; resolves to the run's
   * `tool.approval_resolved`. The first decision wins: a later one is a {@link ConflictError}
   * (`approval_resolved`), an unknown approval a {@link NotFoundError}.
   */
  approve(runId: string, approvalId: string, options?: ApproveOptions): Promise<ApprovalResolved>;
  /** Denies a tool call that waits for a decision, with an optional `reason` the model is told; as `approve` otherwise. */
  deny(runId: string, approvalId: string, options?: DenyOptions): Promise<ApprovalResolved>;
  /**
   * Sends a message into a running run: the model reads it before its next turn (`message.received`
   * with the returned `message_id`); in chat mode (`await_input`) it ends the wait. A run that has
   * ended is a {@link ConflictError} (`run_ended`).
   */
  sendMessage(runId: string, content: MessageContent, options?: RequestOptions): Promise<MessageAccepted>;
  /** A short-lived token for a browser `EventSource`, which cannot send the API key; its `events_url` is a path on the bridge. */
  streamToken(runId: string, options?: RequestOptions): Promise<StreamToken>;
  /**
   * The run's events from `after` on, as an async iterable that ends after the terminal event and
   * resumes by itself with `Last-Event-ID` when the connection breaks, so the events it yields are
   * exactly the run's log: none lost, none repeated. Events of types newer than this client come
   * through as {@link UnknownRunEvent}s; {@link isKnownRunEvent} tells them apart. Leaving the loop
   * early closes the connection; the run itself goes on.
   */
  events(runId: string, options?: RunEventsOptions): AsyncIterable<AnyRunEvent>;
}

/** The {@link RunsApi} over `transport`, resuming event streams within `reconnect`. */
export function runsApi(transport: ClientTransport, reconnect: Required<ReconnectOptions>): RunsApi {
  return {
    create: (request = {}, { idempotencyKey, signal } = {}) =>
      sendForJson(transport, {
        route: 'POST /v1/runs',
        body: request,
        headers: idempotencyKey === undefined ? {} : { 'Idempotency-Key': idempotencyKey },
        signal,
      }),
    get: (runId, { signal } = {}) =>
      sendForJson(transport, { route: 'GET /v1/runs/:id', params: { id: runId }, signal }),
    list: ({ status, limit, after } = {}, { signal } = {}) =>
      sendForJson(transport, { route: 'GET /v1/runs', query: { status, limit, after }, signal }),
    cancel: (runId, { signal } = {}) =>
      sendForJson(transport, { route: 'POST /v1/runs/:id/cancel', params: { id: runId }, signal }),
    delete: async (runId, { signal } = {}) => {
      const response = await send(transport, { route: 'DELETE /v1/runs/:id', params: { id: runId }, signal });
      await response.body?.cancel();
    },
    approve: (runId, approvalId, { arguments: args, signal } = {}) =>
      sendForJson(transport, {
        route: 'POST /v1/runs/:id/approvals/:approval_id',
        params: { id: runId, approval_id: approvalId },
        body: { decision: 'approve', ...(args === undefined ? {} : { arguments: args }) },
        signal,
      }),
    deny: (runId, approvalId, { reason, signal } = {}) =>
      sendForJson(transport, {
        route: 'POST /v1/runs/:id/approvals/:approval_id',
        params: { id: runId, approval_id: approvalId },
        body: { decision: 'deny', ...(reason === undefined ? {} : { reason }) },
        signal,
      }),
    sendMessage: (runId, content, { signal } = {}) =>
      sendForJson(transport, {
        route: 'POST /v1/runs/:id/messages',
        params: { id: runId },
        body: { content },
        signal,
      }),
    streamToken: (runId, { signal } = {}) =>
      sendForJson(transport, { route: 'POST /v1/runs/:id/stream-token', params: { id: runId }, body: {}, signal }),
    events: (runId, options = {}) => streamRunEvents(transport, runId, options, reconnect),
  };
}
