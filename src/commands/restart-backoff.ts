/** How long the primary of `serve --workers N` waits before replacing a worker that died. */
export interface RestartPolicy {
  /** The wait after a worker that had stayed up dies. */
  firstDelayMs: number;
  /** No wait is longer. */
  maxDelayMs: number;
  /** A worker up this long has proved its start: the next wait is the first again. */
  stableMs: number;
}

/**
 * The waits of docs/deployment.md: 1 s, doubled for each replacement that dies within a minute of its
 * start, at most a minute. A worker that cannot stay up (Redis refuses it, a bad environment, a crash
 * at its first request) would otherwise be forked again at once, over and over, each fork a Node
 * start-up's worth of CPU taken from the workers that serve.
 */
export const WORKER_RESTARTS: RestartPolicy = { firstDelayMs: 1000, maxDelayMs: 60_000, stableMs: 60_000 };

/** The waits before restarting one worker's place, each twice the last while its workers keep dying young. */
export class RestartBackoff {
  /** Workers of this place that died before `stableMs`, one after another. */
  #quickDeaths = 0;

  constructor(readonly policy: RestartPolicy = WORKER_RESTARTS) {}

  /** The wait before replacing a worker that died after `livedMs` (from its fork). */
  next(livedMs: number): number {
    if (livedMs >= this.policy.stableMs) this.#quickDeaths = 0;
    const delay = Math.min(this.policy.maxDelayMs, this.policy.firstDelayMs * 2 ** this.#quickDeaths);
    this.#quickDeaths += 1;
    return delay;
  }
}
