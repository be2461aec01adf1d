import { OrsServerError } from './ors-server-error.js';
import type { ValidationIssue } from './validation-detail.js';

/**
 * The HTTP errors of the ORS server, with the reference server's status codes
 * (src/ors/server/ors-server-error-codes.ts). The error middleware answers each as `{"detail": …}`:
 * the error's `details` when set (the 422 list), else its message.
 */

/** 400: a session endpoint was called without `X-Session-ID` (checked before anything else). */
export function missingSessionId(): OrsServerError {
  return new OrsServerError(
    'X-Session-ID header is required: get an id from POST /create_session and send it on every session request.',
    { code: 'missing_session_id' },
  );
}

/** 404: no session with this id exists, and none was deleted recently. */
export function sessionNotFound(sessionId: string): OrsServerError {
  return new OrsServerError(
    `Active environment not found: no session "${sessionId}"; create it with POST /create first.`,
    { code: 'session_not_found' },
  );
}

/**
 * 404 for a session that existed and was deleted (by `/delete`, idle reaping or shutdown) before the
 * request came: the ORS pages answer 404 for a session that is not there, deleted ones included, and
 * third-party clients know only that. The message still says why it is gone.
 */
export function sessionDeleted(sessionId: string, why: string): OrsServerError {
  return new OrsServerError(
    `Session deleted: session "${sessionId}" ${why}; start a new episode with /create_session and /create.`,
    { code: 'session_not_found' },
  );
}

/**
 * 410 for a request that was already waiting on the session (for its setup) when it was deleted, as
 * the reference server answers its waiters.
 */
export function sessionGone(sessionId: string, why: string): OrsServerError {
  return new OrsServerError(
    `Session deleted: session "${sessionId}" ${why}; start a new episode with /create_session and /create.`,
    { code: 'session_gone' },
  );
}

/** 500: the environment's `setup` threw, so the session has no state to serve. */
export function setupFailed(sessionId: string, cause: unknown): OrsServerError {
  return new OrsServerError(
    `Environment setup failed for session "${sessionId}": ${describeError(cause)}. Delete the session and create a new one.`,
    { code: 'setup_failed', cause },
  );
}

/** 404: the path or `env_name` names no environment served here. */
export function unknownEnvironment(name: string, known: string[]): OrsServerError {
  return new OrsServerError(`unknown environment ${JSON.stringify(name)}; this server has: ${known.join(', ')}.`, {
    code: 'unknown_env',
  });
}

/** 400: the split is not one of the environment's. */
export function invalidSplit(split: string, known: string[]): OrsServerError {
  return new OrsServerError(`Invalid split ${JSON.stringify(split)}; the splits are: ${known.join(', ')}.`, {
    code: 'invalid_split',
  });
}

/** 400: the index is outside the split (negative indices count from the end, as in Python). */
export function invalidIndex(split: string, index: number, count: number): OrsServerError {
  const range = count === 0 ? 'no tasks' : `${count} tasks (use 0…${count - 1}, or -${count}…-1 from the end)`;
  return new OrsServerError(`Invalid index ${index}: split ${JSON.stringify(split)} has ${range}.`, {
    code: 'invalid_index',
  });
}

/** 422: the body does not fit the endpoint's model; `issues` is FastAPI's list. */
export function requestValidationFailed(issues: ValidationIssue[]): OrsServerError {
  return new OrsServerError('The request body does not match the endpoint; see detail.', {
    code: 'validation_error',
    details: issues,
  });
}

/** 401: the server was started with an access token and the request did not bear it. */
export function accessDenied(): OrsServerError {
  return new OrsServerError(
    'This ORS server needs "Authorization: Bearer <token>" with the token it was started with.',
    { code: 'unauthorized' },
  );
}

/** 429: as many sessions as the server holds are open; `/create` is refused until one ends. */
export function tooManySessions(maxSessions: number): OrsServerError {
  return new OrsServerError(
    `This ORS server already holds ${maxSessions} sessions, its limit (maxSessions); delete finished ones, or retry later.`,
    { code: 'too_many_sessions', retryAfterSeconds: SESSION_RETRY_AFTER_SECONDS },
  );
}

/** 413: the request would take the session past the bytes it may receive. */
export function sessionBytesExceeded(sessionId: string, received: number, adding: number, max: number): OrsServerError {
  return new OrsServerError(
    `Session "${sessionId}" has received ${received} bytes and this request adds ${adding}, past its limit of ` +
      `${max} bytes (maxSessionBytes); send less, or start a new episode.`,
    { code: 'session_too_large' },
  );
}

/** Sessions last an episode; a refused `/create` is told to come back after this long. */
const SESSION_RETRY_AFTER_SECONDS = 5;

/** The text of any thrown value: `Name: message` for errors, as the reference server reports them. */
export function describeError(error: unknown): string {
  if (error instanceof Error) return error.name === 'Error' ? error.message : `${error.name}: ${error.message}`;
  return String(error);
}
