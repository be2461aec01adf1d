/**
 * Owns background work: every promise the server starts without awaiting goes through `track`, so
 * nothing is fire-and-forget and shutdown can wait for all of it. A tracked promise that rejects is
 * reported to `onError` instead of becoming an unhandled rejection.
 */
export class TaskTracker {
  readonly #tasks = new Set<Promise<unknown>>();

  constructor(private readonly onError: (error: unknown) => void) {}

  /** Tracks `task` until it settles. */
  track(task: Promise<unknown>): void {
    const tracked = task.then(
      () => undefined,
      (error: unknown) => this.onError(error),
    );
    this.#tasks.add(tracked);
    void tracked.finally(() => this.#tasks.delete(tracked));
  }

  /** Resolves once every task tracked so far, and every task they track meanwhile, has settled. */
  async idle(): Promise<void> {
    while (this.#tasks.size > 0) await Promise.all(this.#tasks);
  }
}
