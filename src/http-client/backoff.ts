/** How often and how patiently a failed request is tried again (an ORS request, a client's reconnect). */
export interface RetryPolicy {
  /** Attempts after the first; 0 disables retrying. */
  retries: number;
  /** Upper bound of the first delay; each later attempt doubles it. */
  baseDelayMs: number;
  /** No delay exceeds this, whatever the attempt number or the server's `Retry-After`. */
  maxDelayMs: number;
}

/**
 * The wait before retry number `attempt` (0 for the first retry): a uniformly random delay up to
 * `baseDelayMs * 2^attempt`, capped at `maxDelayMs` ("full jitter", so many clients that failed
 * together do not come back together). A server's `Retry-After` raises the delay to at least that
 * long, still within `maxDelayMs`.
 */
export function backoffDelayMs(
  attempt: number,
  policy: RetryPolicy,
  retryAfterMs = 0,
  random: () => number = Math.random,
): number {
  const ceiling = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** attempt);
  return Math.min(policy.maxDelayMs, Math.max(retryAfterMs, Math.floor(random() * ceiling)));
}

/**
 * Resolves after `ms` milliseconds. Rejects at once with `signal.reason` when `signal` is or becomes
 * aborted, clearing its timer, so an abort never waits out a backoff and never leaves a timer behind.
 */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) {
      reject(signal.reason);
      return;
    }
    const onAbort = (): void => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

/**
 * Milliseconds a `Retry-After` header asks for (delta-seconds or an HTTP date); 0 when the header is
 * absent or unreadable.
 */
export function parseRetryAfterMs(value: string | null, now: number = Date.now()): number {
  if (value === null || value.trim() === '') return 0;
  const seconds = Number(value);
  if (Number.isFinite(seconds)) return Math.max(0, seconds * 1000);
  const date = Date.parse(value);
  return Number.isNaN(date) ? 0 : Math.max(0, date - now);
}
