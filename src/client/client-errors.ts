import { parseRetryAfterMs } from '../http-client/backoff.js';
import type { ErrorCode } from '../protocol/error-codes.js';

/**
 * The errors `runbridge/client` throws. One base class, {@link RunbridgeClientError}; below it, the
 * bridge's own answers ({@link ApiError} and a subclass per meaning of its status), and the failures
 * that never got an answer (no connection, a stream that could not be resumed, a response that is not
 * what the API promises). An abort is not wrapped: it rejects with the signal's own reason.
 */

/** The base class of every error of the client; `name` is the subclass's name. */
export class RunbridgeClientError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = new.target.name;
  }
}

/**
 * The `code` of an {@link ApiError}: one of the bridge's codes ({@link ErrorCode}, listed in
 * docs/api.md), or a string this client does not know — a code a newer server added, or
 * `http_<status>` for an answer without the bridge's error body. A `switch` on it narrows to the
 * codes it names; give it a `default` for the rest.
 */
export type ApiErrorCode = ErrorCode | (string & {});

/** What an {@link ApiError} is built from: the answer's status, its error body and its `Retry-After`. */
export interface ApiErrorInit {
  /** The answer's HTTP status. */
  status: number;
  /** The error body's code, or `http_<status>` without one. */
  code: ApiErrorCode;
  /** The error body's `details`, if any. */
  details?: unknown;
  /** Seconds from the answer's `Retry-After` header, if it had one. */
  retryAfterSeconds?: number | undefined;
}

/**
 * The bridge answered with an error status. `message`, `code` and `details` come from its error body
 * (`{"error": {code, message, details?}}`, see docs/api.md); an answer without that body (a proxy's
 * error page) gets `code` `http_<status>` and a message saying so.
 */
export class ApiError extends RunbridgeClientError {
  /** The HTTP status of the answer. */
  readonly status: number;
  /** The machine-readable snake_case code of the error body, e.g. `unknown_model` or `queue_full`. */
  readonly code: ApiErrorCode;
  /** The error body's `details` (e.g. the validation issues of a 400), or undefined when it had none. */
  readonly details: unknown;
  /** Seconds the answer's `Retry-After` header asks to wait (429 and 503), or undefined without one. */
  readonly retryAfterSeconds: number | undefined;

  constructor(message: string, init: ApiErrorInit) {
    super(message);
    this.status = init.status;
    this.code = init.code;
    this.details = init.details;
    this.retryAfterSeconds = init.retryAfterSeconds;
  }
}

/** 400, 413, 415 or 422: the request itself is wrong (bad body, unknown model or env, bad cursor); fix it before sending again. */
export class InvalidRequestError extends ApiError {}

/** 401: no API key, or one the bridge does not know. */
export class AuthenticationError extends ApiError {}

/** 403: the bridge understood who is asking and refuses. */
export class PermissionDeniedError extends ApiError {}

/** 404: no such run (or route) for this API key — runs of other keys answer 404 too. */
export class NotFoundError extends ApiError {}

/** 409: the request conflicts with the run's state (an idempotency key reused with another body, deleting a live run). */
export class ConflictError extends ApiError {}

/** 429: a bound was hit (queue full, too many streams); `retryAfterSeconds` says when to come back. */
export class RateLimitError extends ApiError {}

/** 503: the bridge is shutting down or its store is unreachable; try again later or elsewhere. */
export class UnavailableError extends ApiError {}

/** Any other 5xx: the bridge (or a proxy in front of it) failed; the bridge's log has the details. */
export class ServerError extends ApiError {}

/** No answer at all: nothing listens at the base URL, DNS failed, the connection was refused or reset. */
export class ConnectionError extends RunbridgeClientError {}

/**
 * A run's event stream broke off and could not be resumed within the reconnect bounds. `lastSeq` is
 * the seq of the last event delivered (-1 for none); pass it as `after` to resume later. The last
 * failure is the `cause`.
 */
export class StreamInterruptedError extends RunbridgeClientError {
  /** The seq of the last event the stream delivered, or the `after` it started from. */
  readonly lastSeq: number;

  constructor(message: string, options: { lastSeq: number; cause: unknown }) {
    super(message, { cause: options.cause });
    this.lastSeq = options.lastSeq;
  }
}

/** The answer is not what the API promises (not JSON, not an event stream, a frame that is not an event): usually the URL points at something else. */
export class UnexpectedResponseError extends RunbridgeClientError {}

/**
 * The error for an answer with a non-2xx status: its error body's message and code when it has the
 * bridge's error body (docs/protocol.md §2), else a message naming the status and what came instead. `request` names the
 * request (e.g. `POST /v1/runs`) in that fallback message.
 */
export async function apiErrorOf(response: Response, request: string): Promise<ApiError> {
  const text = await response.text().catch(() => '');
  const body = parseErrorBody(text);
  const init: ApiErrorInit = {
    status: response.status,
    code: body?.code ?? `http_${response.status}`,
    details: body?.details,
    retryAfterSeconds: retryAfterSecondsOf(response.headers.get('Retry-After')),
  };
  const message =
    body?.message ??
    `${request} answered ${response.status} without runbridge's error body (${describeText(text)}); ` +
      'check that the base URL points at a runbridge server.';
  const ErrorClass = errorClassFor(response.status);
  return new ErrorClass(message, init);
}

function errorClassFor(status: number): typeof ApiError {
  switch (status) {
    case 400:
    case 413:
    case 415:
    case 422:
      return InvalidRequestError;
    case 401:
      return AuthenticationError;
    case 403:
      return PermissionDeniedError;
    case 404:
      return NotFoundError;
    case 409:
      return ConflictError;
    case 429:
      return RateLimitError;
    case 503:
      return UnavailableError;
    default:
      return status >= 500 ? ServerError : ApiError;
  }
}

/** The `error` of the bridge's error body, or undefined when `text` is not one. */
function parseErrorBody(text: string): { code: string; message: string; details?: unknown } | undefined {
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (typeof body !== 'object' || body === null || !('error' in body)) return undefined;
  const { error } = body;
  if (typeof error !== 'object' || error === null) return undefined;
  const { code, message } = error as { code?: unknown; message?: unknown };
  if (typeof code !== 'string' || typeof message !== 'string') return undefined;
  return { code, message, details: (error as { details?: unknown }).details };
}

/** `Retry-After` in seconds (delta-seconds or an HTTP date; 0 when unreadable), or undefined without the header. */
function retryAfterSecondsOf(value: string | null): number | undefined {
  return value === null ? undefined : parseRetryAfterMs(value) / 1000;
}

function describeText(text: string): string {
  if (text.trim() === '') return 'an empty body';
  const line = text.trim().replace(/\s+/g, ' ');
  return `the body begins ${JSON.stringify(line.slice(0, 80))}`;
}
