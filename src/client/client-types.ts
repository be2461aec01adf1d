import type { z } from 'zod';
import type {
  CancelAnswerSchema,
  EnvironmentListSchema,
  MessageAcceptedSchema,
  ModelListSchema,
  RunListSchema,
  StreamTokenAnswerSchema,
} from '../protocol/api-answers.js';
import { RUN_EVENT_TYPES, TERMINAL_EVENT_TYPES } from '../protocol/run-event-types.js';
import type { RunEvent, RunEventOf, TerminalEvent } from '../protocol/run-events.js';
import type { MessageContentSchema, RunRequestSchema } from '../protocol/run-request.js';
import type { RunStatus } from '../protocol/run-snapshot.js';

/**
 * The types of the client's requests and answers, inferred from the zod schemas the server validates
 * and answers with (`src/protocol/`, and the route answers described for the OpenAPI document), so
 * client and server cannot drift apart. Only types are imported, and the list of event types: no
 * schema code reaches a browser.
 */

/** The body of `POST /v1/runs` as a caller writes it: every field optional (see docs/api.md). */
export type RunRequest = z.input<typeof RunRequestSchema>;

/** One page of `GET /v1/runs`: the caller's runs, newest first; `next` is the `after` of the next page, or null. */
export type RunPage = z.infer<typeof RunListSchema>;

/** The answer of `POST /v1/runs/:id/cancel`: the run and its status at that moment. */
export type CancelAnswer = z.infer<typeof CancelAnswerSchema>;

/** The answer of a decision about an approval: the run's `tool.approval_resolved`, the first decision's. */
export type ApprovalResolved = RunEventOf<'tool.approval_resolved'>;

/** The answer of `POST /v1/runs/:id/messages`: the message's id, which its `message.received` will carry. */
export type MessageAccepted = z.infer<typeof MessageAcceptedSchema>;

/** A message for a run: text, or OpenAI-style `text` / `image_url` (data URI) parts. */
export type MessageContent = z.input<typeof MessageContentSchema>;

/** A short-lived token that opens one run's event stream without a header, for a browser `EventSource`. */
export type StreamToken = z.infer<typeof StreamTokenAnswerSchema>;

/** `GET /v1/models`: the models the bridge can drive, in OpenAI's list shape (ids are `provider:name`), with `default` and `unreachable`. */
export type ModelList = z.infer<typeof ModelListSchema>;

/** `GET /v1/environments`: the environments with their splits and task counts, and the default environment. */
export type EnvironmentList = z.infer<typeof EnvironmentListSchema>;

/** The query of `GET /v1/runs`: filter by status, page size (1–100, default 20), and the run to list after. */
export interface RunListQuery {
  /** Only runs in this status. */
  status?: RunStatus;
  /** Runs per page, 1–100; default 20. */
  limit?: number;
  /** The `next` of the previous page: list the runs after that one. */
  after?: string;
}

/**
 * An event of a type this client does not know — sent by a newer bridge. It has the envelope every
 * event has; its other fields are untyped. Told apart from known events with {@link isKnownRunEvent}.
 */
export interface UnknownRunEvent {
  /** The event's type, one this client does not know. */
  event: string;
  /** Its place in the run's log, like every event's. */
  seq: number;
  /** The run it belongs to. */
  run_id: string;
  /** When it was logged, in epoch seconds. */
  timestamp: number;
  /** The type's own fields, untyped. */
  [field: string]: unknown;
}

/** What a run's event stream yields: a typed {@link RunEvent}, or an event of a type newer than this client. */
export type AnyRunEvent = RunEvent | UnknownRunEvent;

/** Every event type this client knows: the protocol's list, which the event schema is checked against. */
const KNOWN_EVENT_TYPES: ReadonlySet<string> = new Set(RUN_EVENT_TYPES);

const ENDING_EVENT_TYPES: ReadonlySet<string> = new Set(TERMINAL_EVENT_TYPES);

/**
 * True when `event` is of a type this client knows, which narrows it to {@link RunEvent} so a
 * `switch (event.event)` sees each event's own fields; false for an event of a newer bridge.
 */
export function isKnownRunEvent(event: AnyRunEvent): event is RunEvent {
  return KNOWN_EVENT_TYPES.has(event.event);
}

/** True for the three events that end a run's log: `run.completed`, `run.failed` and `run.cancelled`. */
export function isTerminalRunEvent(event: AnyRunEvent): event is TerminalEvent {
  return ENDING_EVENT_TYPES.has(event.event);
}
