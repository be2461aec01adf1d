import { RunbridgeError } from '../errors.js';

/** Seconds a caller waits before trying again a request the store could not serve. */
const RETRY_AFTER_SECONDS = 2;

/**
 * The shared store (Redis) cannot be reached, or did not answer in time; the route answers 503 with
 * `Retry-After`, and the instance recovers by itself once Redis answers again.
 */
export class StoreUnavailableError extends RunbridgeError {
  constructor(message?: string, cause?: unknown) {
    super(
      message ??
        'The run store (Redis) cannot be reached right now; retry in a few seconds. Open streams of runs ' +
          'are ended so their clients resume once it is back.',
      { code: 'store_unavailable', cause, retryAfterSeconds: RETRY_AFTER_SECONDS },
    );
  }
}
