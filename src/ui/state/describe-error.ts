import {
  ApiError,
  AuthenticationError,
  ConnectionError,
  InvalidRequestError,
  NotFoundError,
  RateLimitError,
  ServerError,
  StreamInterruptedError,
  UnavailableError,
} from 'runbridge/client';

/** An error as the page tells it: a short title, what happened and what to do, and what the page offers to do next. */
export interface ErrorNotice {
  title: string;
  message: string;
  /** `key`: ask for the API key; `retry`: the same request may work later; `resume`: follow the stream again from where it stopped. */
  action: 'key' | 'retry' | 'resume' | undefined;
  /** Seconds the bridge asked to wait (`Retry-After` of a 429 or 503). */
  retryAfterSeconds: number | undefined;
  /** The API's machine-readable code, when the bridge answered. */
  code: string | undefined;
}

/**
 * What to tell a person about `error`, thrown by the client while the page did `doing` (e.g. "start
 * the run") on the bridge at `bridge` (its origin). Every answer of the API (docs/api.md, Errors) gets words of its own; the bridge's own
 * message, which says what went wrong and what to do, is kept wherever it is the best explanation.
 */
export function describeError(error: unknown, doing: string, bridge: string): ErrorNotice {
  const notice = (title: string, message: string, action?: ErrorNotice['action']): ErrorNotice => ({
    title,
    message,
    action,
    retryAfterSeconds: error instanceof ApiError ? error.retryAfterSeconds : undefined,
    code: error instanceof ApiError ? error.code : undefined,
  });
  if (error instanceof AuthenticationError) {
    return notice(
      'API key needed',
      'The bridge did not accept the API key. Enter one of the keys in its RUNBRIDGE_API_KEYS.',
      'key',
    );
  }
  if (error instanceof RateLimitError) {
    const wait = error.retryAfterSeconds === undefined ? 'in a moment' : `in ${seconds(error.retryAfterSeconds)}`;
    return notice('The bridge is busy', `${error.message} Try again ${wait}.`, 'retry');
  }
  if (error instanceof InvalidRequestError && error.status === 413) {
    return notice(
      'Too large',
      `The bridge refused to ${doing}: the request is larger than its limit (RUNBRIDGE_MAX_BODY_BYTES). Shorten the message and try again.`,
    );
  }
  if (error instanceof NotFoundError && error.code === 'run_not_found') {
    return notice(
      'Run not found',
      'This bridge does not hold that run: it never existed, it was forgotten (finished runs are kept for a while, see RUNBRIDGE_RETENTION_SECONDS), or it belongs to another API key.',
    );
  }
  if (error instanceof UnavailableError) {
    return notice('The bridge is unavailable', `${error.message} Try again in a moment.`, 'retry');
  }
  if (error instanceof ServerError) {
    return notice(`Could not ${doing}`, `${error.message} (${error.code})`, 'retry');
  }
  if (error instanceof ApiError) return notice(`Could not ${doing}`, error.message);
  if (error instanceof StreamInterruptedError) {
    return notice(
      'Connection lost',
      `The connection to the bridge broke off after event ${error.lastSeq} and could not be restored. Nothing shown is lost.`,
      'resume',
    );
  }
  if (error instanceof ConnectionError) {
    return notice(
      'Bridge unreachable',
      `Could not reach the bridge at ${bridge} to ${doing}. Check that it is running, then try again.`,
      'retry',
    );
  }
  return notice(`Could not ${doing}`, error instanceof Error ? error.message : String(error), 'retry');
}

function seconds(value: number): string {
  const whole = Math.max(1, Math.ceil(value));
  return whole === 1 ? '1 second' : `${whole} seconds`;
}
