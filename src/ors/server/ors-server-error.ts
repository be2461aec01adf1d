import { ORS_SERVER_ERROR_STATUS, type OrsServerErrorCode } from './ors-server-error-codes.js';

/**
 * A failure the ORS server answers before the first byte: the status comes from its code, and the
 * error middleware answers `{"detail": …}` with its `details` when set (the 422 list), else its message.
 */
export class OrsServerError extends Error {
  /** What failed, for this server's code and logs (ORS bodies carry no code). */
  readonly code: OrsServerErrorCode;
  /** The HTTP status of the answer, from {@link ORS_SERVER_ERROR_STATUS}. */
  readonly status: number;
  /** The answer's `detail` when it is not the message (the 422 list of issues). */
  readonly details: unknown;
  /** The answer's `Retry-After` in seconds, for a bound that frees up by itself. */
  readonly retryAfterSeconds: number | undefined;

  constructor(
    message: string,
    options: { code: OrsServerErrorCode; details?: unknown; retryAfterSeconds?: number; cause?: unknown },
  ) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = new.target.name;
    this.code = options.code;
    this.status = ORS_SERVER_ERROR_STATUS[options.code];
    this.details = options.details;
    this.retryAfterSeconds = options.retryAfterSeconds;
  }
}
