import type { Run } from './run.js';

export interface RetentionLimits {
  orphanTtlMs: number;
  retentionMs: number;
}

export interface RunRetentionOptions {
  limits: RetentionLimits;
  now: () => number;
  /** Every run held, oldest first. */
  runs: () => Iterable<Run>;
  /** Cancels a run nobody watched within the orphan TTL. */
  cancelOrphan: (run: Run) => void;
  /** Forgets a finished run. */
  forget: (run: Run) => void;
}

/** How often orphans and expired runs are swept. */
const SWEEP_INTERVAL_MS = 1000;

/**
 * Keeps what the server holds in bounds (CONTRACT §6): every sweep cancels running runs that no
 * subscriber and no request has touched within the orphan TTL (`reason: "orphaned"`), and forgets
 * finished runs past their retention.
 */
export class RunRetention {
  readonly #o: RunRetentionOptions;
  readonly #timer: NodeJS.Timeout;

  constructor(options: RunRetentionOptions) {
    this.#o = options;
    this.#timer = setInterval(() => this.sweep(), SWEEP_INTERVAL_MS);
    // The sweeper must not keep a finished process alive; `stop` clears it anyway.
    this.#timer.unref();
  }

  /** Cancels orphaned runs and forgets finished runs past their retention. */
  sweep(): void {
    const now = this.#o.now();
    const { orphanTtlMs, retentionMs } = this.#o.limits;
    for (const run of [...this.#o.runs()]) {
      if (run.finished) {
        if (now - (run.finishedAt ?? now) >= retentionMs) this.#o.forget(run);
      } else if (run.subscribers === 0 && now - run.lastTouchedAt >= orphanTtlMs) {
        this.#o.cancelOrphan(run);
      }
    }
  }

  stop(): void {
    clearInterval(this.#timer);
  }
}
