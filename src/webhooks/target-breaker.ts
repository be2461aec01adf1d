/** Receivers failing at once that are remembered; past it the one failing longest is forgotten. */
const MAX_TARGETS = 10_000;

interface Failing {
  /** Failed attempts in a row. */
  failures: number;
  /** What the last one got. */
  lastError: string;
  /** Until when nothing is sent (epoch ms), once `failures` reached the bound. */
  openUntil: number;
  /** A trial attempt is under way (the wait is over, and one attempt decides). */
  trying: boolean;
}

/**
 * A circuit breaker per webhook target — a key's receiver (one origin of one key's runs, so no key's
 * failures ever hold back another's deliveries): after `failures` failed attempts in a row, attempts
 * to it are not made for `openMs` — each fails at once, holding no delivery slot — then one trial
 * attempt goes; its success sends everything again, its failure waits another `openMs`.
 */
export class TargetBreaker {
  readonly #failures: number;
  readonly #openMs: number;
  readonly #failing = new Map<string, Failing>();

  constructor(options: { failures: number; openMs: number }) {
    this.#failures = options.failures;
    this.#openMs = options.openMs;
  }

  /**
   * Whether an attempt to `target` (named `origin`) may be made at `now`: undefined when it may (a
   * trial attempt then counts as under way until {@link record}), else why not, for the delivery's
   * `last_error`.
   */
  refusal(target: string, origin: string, now: number): string | undefined {
    const failing = this.#failing.get(target);
    if (failing === undefined || failing.failures < this.#failures) return undefined;
    if (now >= failing.openUntil && !failing.trying) {
      failing.trying = true;
      return undefined;
    }
    const why = `not sent: ${origin} failed ${failing.failures} times in a row (${failing.lastError})`;
    return now < failing.openUntil
      ? `${why}; it is tried again from ${new Date(failing.openUntil).toISOString()}`
      : `${why}; one trial attempt is under way`;
  }

  /** Records the outcome of an attempt to `target` made at `now`: `error` undefined when delivered. */
  record(target: string, now: number, error: string | undefined): void {
    if (error === undefined) {
      this.#failing.delete(target);
      return;
    }
    const failing = this.#failing.get(target) ?? { failures: 0, lastError: '', openUntil: 0, trying: false };
    failing.failures++;
    failing.lastError = error;
    failing.trying = false;
    if (failing.failures >= this.#failures) failing.openUntil = now + this.#openMs;
    // Last in the map's order: the first is the one that failed least lately.
    this.#failing.delete(target);
    this.#failing.set(target, failing);
    if (this.#failing.size > MAX_TARGETS) this.#failing.delete(this.#failing.keys().next().value as string);
  }
}
