import { sleep } from '../../http-client/backoff.js';

/** The signals a request follows: the caller's, and the session's end for a session's request. */
export type AbortParents = ReadonlyArray<AbortSignal | undefined>;

/** Waits `ms` between attempts, rejecting with the reason of the first of `parents` to abort. */
export async function sleepUnlessAborted(ms: number, parents: AbortParents): Promise<void> {
  const scope = new AbortScope(parents);
  try {
    await sleep(ms, scope.signal);
  } finally {
    scope.dispose();
  }
}

/**
 * One attempt's abort signal: it aborts when any parent signal aborts (with that parent's reason) or
 * when its own timer runs out. The timer can be restarted, which makes it an idle timer. `dispose()`
 * detaches from the parents and clears the timer; every scope must be disposed.
 *
 * A scope is made for every ORS request, so it makes no closure of its own: it listens to its parents
 * as an `EventListener` object (`handleEvent`) and hands its timer a static method
 * (`bench/profiling-log.md`).
 */
export class AbortScope {
  readonly #controller = new AbortController();
  readonly #parents: AbortSignal[];
  readonly #timeoutMs: number | undefined;
  #timer: ReturnType<typeof setTimeout> | undefined;
  #timedOut = false;
  /** A parent aborted the scope (before its timer did, if it ever ran out). */
  #parentAborted = false;
  #disposed = false;

  /**
   * Links to every defined signal in `parents`; with `timeoutMs`, aborts that long after creation or
   * the last `touch()`. An already aborted parent aborts the scope immediately.
   */
  constructor(parents: AbortParents, timeoutMs?: number) {
    this.#parents = parents.filter((signal): signal is AbortSignal => signal !== undefined);
    this.#timeoutMs = timeoutMs;
    for (const parent of this.#parents) {
      if (parent.aborted) {
        this.#parentAborted = true;
        this.#controller.abort(parent.reason);
        return;
      }
      parent.addEventListener('abort', this, { once: true });
    }
    this.touch();
  }

  /** The signal to hand to fetch, reads and waits of this attempt. */
  get signal(): AbortSignal {
    return this.#controller.signal;
  }

  /** True when the scope's own timer aborted it (rather than a parent). */
  get timedOut(): boolean {
    return this.#timedOut;
  }

  /** Restarts the timer; does nothing without a timeout, after an abort or after `dispose()`. */
  touch(): void {
    if (this.#timeoutMs === undefined || this.#disposed || this.#controller.signal.aborted) return;
    // `refresh` restarts the same timer: touched per chunk read, a new timer each time showed in profiles.
    if (this.#timer) this.#timer.refresh();
    else this.#timer = setTimeout(AbortScope.#expire, this.#timeoutMs, this);
  }

  /**
   * Throws the reason of the parent that aborted the scope, or else of the first aborted parent, so a
   * caller's abort surfaces as the caller's reason and a session's end as the session's.
   */
  throwIfParentAborted(): void {
    if (this.#parentAborted) throw this.#controller.signal.reason;
    for (const parent of this.#parents) parent.throwIfAborted();
  }

  /** Clears the timer and stops listening to the parents. Idempotent. */
  dispose(): void {
    if (this.#disposed) return;
    this.#disposed = true;
    clearTimeout(this.#timer);
    this.#timer = undefined;
    for (const parent of this.#parents) parent.removeEventListener('abort', this);
  }

  /** A parent aborted: abort with its reason. (The `EventListener` side of the scope; not for callers.) */
  handleEvent(event: Event): void {
    clearTimeout(this.#timer);
    if (this.#controller.signal.aborted) return;
    this.#parentAborted = true;
    this.#controller.abort((event.target as AbortSignal).reason);
  }

  /** The timer ran out. */
  static #expire(scope: AbortScope): void {
    scope.#timer = undefined;
    scope.#timedOut = true;
    scope.#controller.abort(new DOMException(`No progress for ${scope.#timeoutMs} ms.`, 'TimeoutError'));
  }
}
