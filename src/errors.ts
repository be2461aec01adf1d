import { ERROR_CODES, type ErrorCode, type ErrorCodeOfStatus } from './protocol/error-codes.js';

/**
 * The error hierarchy of runbridge. Every error carries a machine-readable `code` from the table of
 * src/protocol/error-codes.ts (the same string clients see in `{"error": {"code"}}` bodies and
 * `run.failed` events) and the HTTP `status` the table gives it. Subclasses are named for what went
 * wrong, not where; those named for a status (not found, conflict, …) take only codes of that status.
 */
export class RunbridgeError extends Error {
  /** Machine-readable code, stable across releases. */
  readonly code: ErrorCode;
  /** HTTP status this error answers with when it reaches the HTTP layer before the first byte. */
  readonly status: number;
  /** Extra structured detail, safe to show to the caller (never secrets). */
  readonly details: unknown;
  /** When the caller may try again, in seconds (`Retry-After`): set on the refusals that pass. */
  readonly retryAfterSeconds: number | undefined;

  /**
   * `status` defaults to the table's; pass it only where the same code answers with another one (a
   * failed run's code, which `POST /v1/chat/completions` answers with 502).
   */
  constructor(
    message: string,
    options: { code: ErrorCode; status?: number; details?: unknown; cause?: unknown; retryAfterSeconds?: number },
  ) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = new.target.name;
    this.code = options.code;
    this.status = options.status ?? ERROR_CODES[options.code].status;
    this.details = options.details;
    this.retryAfterSeconds = options.retryAfterSeconds;
  }
}

/** The caller sent something we cannot accept (bad body, bad cursor, bad header). */
export class BadRequestError extends RunbridgeError {
  constructor(message: string, options: { code?: ErrorCodeOfStatus<400 | 413 | 415>; details?: unknown } = {}) {
    super(message, { code: options.code ?? 'invalid_request', details: options.details });
  }
}

/** No credentials, or credentials that match no configured key. */
export class UnauthorizedError extends RunbridgeError {
  constructor(message = 'Send "Authorization: Bearer <key>" with one of the configured API keys.') {
    super(message, { code: 'unauthorized' });
  }
}

/** The thing asked for does not exist, or belongs to another caller (we do not say which). */
export class NotFoundError extends RunbridgeError {
  constructor(message: string, code: ErrorCodeOfStatus<404> = 'not_found') {
    super(message, { code });
  }
}

/** The request conflicts with the current state (idempotency key reuse, deleting a live run). */
export class ConflictError extends RunbridgeError {
  constructor(message: string, code: ErrorCodeOfStatus<409>) {
    super(message, { code });
  }
}

/** A bound was hit; `retryAfterSeconds` tells the caller when to come back. */
export class CapacityError extends RunbridgeError {
  declare readonly retryAfterSeconds: number;

  constructor(message: string, retryAfterSeconds: number, code: ErrorCodeOfStatus<429> = 'queue_full') {
    super(message, { code, retryAfterSeconds });
  }
}

/** The server is shutting down and takes no new work. */
export class DrainingError extends RunbridgeError {
  constructor() {
    super('The server is shutting down and accepts no new runs; retry against another instance.', {
      code: 'draining',
    });
  }
}

/** Failures talking to an ORS server. `code` tells them apart (`ors_unavailable`, `ors_session_lost`, …). */
export class OrsError extends RunbridgeError {
  constructor(message: string, options: { code: ErrorCode; details?: unknown; cause?: unknown }) {
    super(message, options);
  }
}

/** The codes of a model provider's failures (`model_auth`, `model_unavailable`, …), as the table lists them. */
export type ModelErrorCode = Extract<ErrorCode, `model_${string}`>;

/** Failures talking to a model provider (`model_auth`, `model_unavailable`, `model_stream_interrupted`, …). */
export class ModelError extends RunbridgeError {
  constructor(message: string, options: { code: ModelErrorCode; details?: unknown; cause?: unknown }) {
    super(message, options);
  }
}

/** True when `error` is the rejection an aborted `AbortSignal` produces (ours or fetch's). */
export function isAbortError(error: unknown): boolean {
  return error instanceof Error && (error.name === 'AbortError' || error.name === 'APIUserAbortError');
}
