/**
 * The error hierarchy of runbridge. Every error carries a machine-readable `code` (snake_case, the
 * same string clients see in `{"error": {"code"}}` bodies and `run.failed` events) and, where it maps
 * to one, an HTTP `status`. Subclasses are named for what went wrong, not where.
 */
export class RunbridgeError extends Error {
  /** Machine-readable code, stable across releases. */
  readonly code: string;
  /** HTTP status this error answers with when it reaches the HTTP layer before the first byte. */
  readonly status: number;
  /** Extra structured detail, safe to show to the caller (never secrets). */
  readonly details: unknown;

  constructor(message: string, options: { code: string; status?: number; details?: unknown; cause?: unknown }) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = new.target.name;
    this.code = options.code;
    this.status = options.status ?? 500;
    this.details = options.details;
  }
}

/** The caller sent something we cannot accept (bad body, bad cursor, bad header). */
export class BadRequestError extends RunbridgeError {
  constructor(message: string, options: { code?: string; details?: unknown; status?: number } = {}) {
    super(message, {
      code: options.code ?? 'invalid_request',
      status: options.status ?? 400,
      details: options.details,
    });
  }
}

/** No credentials, or credentials that match no configured key. */
export class UnauthorizedError extends RunbridgeError {
  constructor(message = 'Send "Authorization: Bearer <key>" with one of the configured API keys.') {
    super(message, { code: 'unauthorized', status: 401 });
  }
}

/** The thing asked for does not exist, or belongs to another caller (we do not say which). */
export class NotFoundError extends RunbridgeError {
  constructor(message: string, code = 'not_found') {
    super(message, { code, status: 404 });
  }
}

/** The request conflicts with the current state (idempotency key reuse, deleting a live run). */
export class ConflictError extends RunbridgeError {
  constructor(message: string, code: string) {
    super(message, { code, status: 409 });
  }
}

/** A bound was hit; `retryAfterSeconds` tells the caller when to come back. */
export class CapacityError extends RunbridgeError {
  readonly retryAfterSeconds: number;

  constructor(message: string, retryAfterSeconds: number, code = 'queue_full') {
    super(message, { code, status: 429 });
    this.retryAfterSeconds = retryAfterSeconds;
  }
}

/** The server is shutting down and takes no new work. */
export class DrainingError extends RunbridgeError {
  constructor() {
    super('The server is shutting down and accepts no new runs; retry against another instance.', {
      code: 'draining',
      status: 503,
    });
  }
}

/** Failures talking to an ORS server. `code` tells them apart (`ors_unavailable`, `ors_session_lost`, …). */
export class OrsError extends RunbridgeError {
  constructor(message: string, options: { code: string; status?: number; details?: unknown; cause?: unknown }) {
    super(message, { status: 502, ...options });
  }
}

/** Failures talking to a model provider (`model_auth`, `model_unavailable`, `model_stream_interrupted`, …). */
export class ModelError extends RunbridgeError {
  constructor(message: string, options: { code: string; status?: number; details?: unknown; cause?: unknown }) {
    super(message, { status: 502, ...options });
  }
}

/** True when `error` is the rejection an aborted `AbortSignal` produces (ours or fetch's). */
export function isAbortError(error: unknown): boolean {
  return error instanceof Error && (error.name === 'AbortError' || error.name === 'APIUserAbortError');
}
