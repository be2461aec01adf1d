/**
 * Every failure the ORS server answers before the first byte, by code, with the reference server's
 * status. The codes name the failure in this server's code and logs only: ORS bodies carry no code,
 * just `{"detail": …}` and the status, so a client tells failures apart by status (docs/ors.md). Kept
 * apart from the bridge's codes (src/protocol/error-codes.ts): another API, with codes of its own.
 */
export const ORS_SERVER_ERROR_STATUS = {
  /** A session endpoint was called without `X-Session-ID`. */
  missing_session_id: 400,
  /** `/create` for a session id that is already live. */
  session_exists: 400,
  /** The task is named both ways or neither (split and index, or spec), or its spec does not fit. */
  invalid_task: 400,
  /** The split is not one of the environment's. */
  invalid_split: 400,
  /** The index is outside the split. */
  invalid_index: 400,
  /** The request body was cut off. */
  body_incomplete: 400,
  /** The request does not bear the access token the server was started with. */
  unauthorized: 401,
  /** The path or `env_name` names no environment served here. */
  unknown_env: 404,
  /** No session with this id is live (a recently deleted one's message says why it went). */
  session_not_found: 404,
  /** The session was deleted while the request waited for its setup. */
  session_gone: 410,
  /** The request body passes 16 MiB. */
  body_too_large: 413,
  /** The request would take the session past `maxSessionBytes`. */
  session_too_large: 413,
  /** The body does not fit the endpoint (FastAPI's list of issues). */
  validation_error: 422,
  /** `maxSessions` sessions are open. */
  too_many_sessions: 429,
  /** The environment's `setup` threw, so the session has no state to serve. */
  setup_failed: 500,
  /** An environment returned output that is not valid ORS. */
  invalid_environment_output: 500,
  /** The server is shutting down and takes no new sessions. */
  draining: 503,
} as const;

/** A code of the ORS server's failures: a key of {@link ORS_SERVER_ERROR_STATUS}. */
export type OrsServerErrorCode = keyof typeof ORS_SERVER_ERROR_STATUS;
