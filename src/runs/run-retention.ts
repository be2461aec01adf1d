import type { Logger } from '../telemetry/logger.js';
import type { RunStore } from './run-store.js';
import { StoreUnavailableError } from './store-unavailable-error.js';

export interface RunRetentionOptions {
  store: RunStore;
  /** Cancels a run nobody watched or asked about within the orphan TTL. */
  cancelOrphan: (id: string) => Promise<void>;
  /** Where a sweep that failed is reported (e.g. the store is unreachable); the next sweep tries again. */
  log: Logger;
  /** `RUNBRIDGE_SWEEP_SECONDS`: how often orphans and expired runs are swept. */
  intervalMs: number;
}

/**
 * Keeps what the server holds in bounds (docs/protocol.md §6), once per interval: the store forgets finished
 * runs past their retention or over the stored-bytes budget (and, when shared, ends the runs of
 * lost instances), and every run it names as orphaned — running, but untouched by any subscriber
 * or request within the orphan TTL — is cancelled with `reason: "orphaned"`.
 */
export class RunRetention {
  readonly #o: RunRetentionOptions;
  readonly #timer: NodeJS.Timeout;
  #sweeping: Promise<void> | undefined;

  constructor(options: RunRetentionOptions) {
    this.#o = options;
    this.#timer = setInterval(() => void this.sweep(), options.intervalMs);
    // The sweeper must not keep a finished process alive; `stop` clears it anyway.
    this.#timer.unref();
  }

  /** One sweep; a call while one is under way waits for that one instead of starting another. */
  sweep(): Promise<void> {
    this.#sweeping ??= this.#sweep().finally(() => {
      this.#sweeping = undefined;
    });
    return this.#sweeping;
  }

  async #sweep(): Promise<void> {
    try {
      const { orphans } = await this.#o.store.sweep();
      for (const id of orphans) await this.#o.cancelOrphan(id);
    } catch (error) {
      // While the store is away the connection's own line has said so once; a sweep every interval
      // saying it again would bury everything else.
      if (error instanceof StoreUnavailableError)
        this.#o.log.debug({ err: error }, 'sweep skipped: the store is unavailable');
      else this.#o.log.warn({ err: error }, 'sweep failed');
    }
  }

  /** Stops sweeping; resolves once a sweep under way has ended. */
  async stop(): Promise<void> {
    clearInterval(this.#timer);
    await this.#sweeping;
  }
}
