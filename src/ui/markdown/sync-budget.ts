import { MARKDOWN_LIMITS } from './markdown-limits.js';

/**
 * The Markdown work the page's own thread may still do in the task under way (`syncBudgetMs`): a
 * page opened on a run of a hundred turns draws them on its thread until the budget is spent, and the
 * rest in its worker, rather than freeze for the sum of them all. And what counts as one slow draw
 * (`slowSyncMs`), after which a text is drawn in the worker only.
 */
export class SyncBudget {
  readonly #ms: number;
  readonly #slowMs: number;
  #spent = 0;
  #resetting = false;

  constructor(ms: number = MARKDOWN_LIMITS.syncBudgetMs, slowMs: number = MARKDOWN_LIMITS.slowSyncMs) {
    this.#ms = ms;
    this.#slowMs = slowMs;
  }

  /** Whether there is budget left in this task. */
  available(): boolean {
    return this.#spent < this.#ms;
  }

  /** Counts `ms`, one draw, against this task (the next task starts with the whole budget); says whether that draw was slow. */
  charge(ms: number): boolean {
    this.#spent += ms;
    if (!this.#resetting) {
      this.#resetting = true;
      setTimeout(() => {
        this.#spent = 0;
        this.#resetting = false;
      }, 0);
    }
    return ms > this.#slowMs;
  }
}
