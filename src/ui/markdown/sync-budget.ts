import { MARKDOWN_LIMITS } from './markdown-limits.js';

/**
 * The Markdown work the page's own thread may still do in the task under way (`syncBudgetMs`): a
 * page opened on a run of a hundred turns draws them on its thread until the budget is spent, and the
 * rest in its worker, rather than freeze for the sum of them all.
 */
export class SyncBudget {
  readonly #ms: number;
  #spent = 0;
  #resetting = false;

  constructor(ms: number = MARKDOWN_LIMITS.syncBudgetMs) {
    this.#ms = ms;
  }

  /** Whether there is budget left in this task. */
  available(): boolean {
    return this.#spent < this.#ms;
  }

  /** Counts `ms` of work against this task; the next task starts with the whole budget. */
  charge(ms: number): void {
    this.#spent += ms;
    if (this.#resetting) return;
    this.#resetting = true;
    setTimeout(() => {
      this.#spent = 0;
      this.#resetting = false;
    }, 0);
  }
}
