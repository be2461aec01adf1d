import { RunbridgeError } from '../errors.js';

/** The shared store (Redis) cannot be reached; the route answers 503 and the instance recovers by itself. */
export class StoreUnavailableError extends RunbridgeError {
  constructor(message?: string, cause?: unknown) {
    super(
      message ??
        'The run store (Redis) cannot be reached right now; retry in a few seconds. Open streams of runs ' +
          'are ended so their clients resume once it is back.',
      { code: 'store_unavailable', cause },
    );
  }
}
