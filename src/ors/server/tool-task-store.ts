import { randomUUID } from 'node:crypto';

/** How a tool task ended: the result JSON (`{"ok": …}`) to stream, or a server-level failure message. */
export type ToolTaskOutcome = { kind: 'result'; json: string } | { kind: 'error'; message: string };

/** The reference server's words for a task id it does not know (never started, expired, or another session's). */
export const UNKNOWN_TASK_MESSAGE = 'unknown task_id';
const UNKNOWN_TASK: ToolTaskOutcome = { kind: 'error', message: UNKNOWN_TASK_MESSAGE };

/** One `/{env}/call` execution, reachable by its id from the session that started it. */
export interface ToolTask {
  /** 32 lowercase hex digits, like the reference server's ids. */
  readonly id: string;
  readonly sessionId: string;
  readonly name: string;
  readonly input: Record<string, unknown>;
  /** Undefined while the tool runs; set once, when it finishes. */
  readonly outcome: ToolTaskOutcome | undefined;
}

interface TaskRecord extends ToolTask {
  outcome: ToolTaskOutcome | undefined;
  listeners: Set<(outcome: ToolTaskOutcome) => void>;
  evictTimer: NodeJS.Timeout | undefined;
}

/**
 * Running and finished tool tasks by id. A task runs to its end whoever is listening (a client that
 * disconnects does not cancel it), and its outcome stays for `resultCacheMs` after it finishes so a
 * reconnect can still collect it. Better than the reference: a task is found only together with the
 * session that started it, so a task id leaked to another session is useless there.
 */
export class ToolTaskStore {
  readonly #tasks = new Map<string, TaskRecord>();
  readonly #resultCacheMs: number;

  constructor(options: { resultCacheMs: number }) {
    this.#resultCacheMs = options.resultCacheMs;
  }

  /**
   * Starts `run` as a new task of `sessionId` and returns it at once. `run` should resolve to an
   * outcome; if it rejects anyway, the rejection becomes an `error` outcome, so nothing is left unhandled.
   */
  start(
    sessionId: string,
    name: string,
    input: Record<string, unknown>,
    run: () => Promise<ToolTaskOutcome>,
  ): ToolTask {
    const record: TaskRecord = {
      id: randomUUID().replaceAll('-', ''),
      sessionId,
      name,
      input,
      outcome: undefined,
      listeners: new Set(),
      evictTimer: undefined,
    };
    this.#tasks.set(record.id, record);
    // Owned here: the task's end is recorded whoever listens; both paths are handled and neither throws.
    void run().then(
      (outcome) => this.#finish(record, outcome),
      (error: unknown) =>
        this.#finish(record, { kind: 'error', message: error instanceof Error ? error.message : String(error) }),
    );
    return record;
  }

  /** The task `taskId` if it belongs to `sessionId` and is still known (running, or finished within the cache time). */
  find(taskId: string, sessionId: string): ToolTask | undefined {
    const record = this.#tasks.get(taskId);
    return record?.sessionId === sessionId ? record : undefined;
  }

  /**
   * Calls `listener` exactly once with `task`'s outcome: at once when it has finished, or when it has
   * been forgotten meanwhile (as an `unknown task_id` error); otherwise when it finishes or is dropped
   * with its session. Returns the function that stops listening.
   */
  onOutcome(task: ToolTask, listener: (outcome: ToolTaskOutcome) => void): () => void {
    const record = this.#tasks.get(task.id);
    const settled = task.outcome ?? (record === undefined ? UNKNOWN_TASK : undefined);
    if (settled !== undefined || record === undefined) {
      listener(settled ?? UNKNOWN_TASK);
      return () => {};
    }
    record.listeners.add(listener);
    return () => record.listeners.delete(listener);
  }

  /** True while a tool of `sessionId` is running, which keeps the session from being reaped as idle. */
  hasRunning(sessionId: string): boolean {
    for (const record of this.#tasks.values()) {
      if (record.sessionId === sessionId && record.outcome === undefined) return true;
    }
    return false;
  }

  /**
   * Forgets every task of `sessionId`. Listeners of a task still running hear `message` as an `error`
   * outcome (the session is gone, so its result could never be used); the tool itself is stopped by
   * its session's abort signal, and whatever it returns later is ignored.
   */
  dropSession(sessionId: string, message: string): void {
    for (const record of [...this.#tasks.values()]) {
      if (record.sessionId === sessionId) this.#drop(record, message);
    }
  }

  /** Forgets every task and clears every eviction timer; running tasks' listeners hear `message`. */
  close(message: string): void {
    for (const record of [...this.#tasks.values()]) this.#drop(record, message);
  }

  #finish(record: TaskRecord, outcome: ToolTaskOutcome): void {
    if (this.#tasks.get(record.id) !== record) return;
    record.outcome = outcome;
    this.#notify(record, outcome);
    record.evictTimer = setTimeout(() => this.#tasks.delete(record.id), this.#resultCacheMs);
  }

  #drop(record: TaskRecord, message: string): void {
    this.#tasks.delete(record.id);
    clearTimeout(record.evictTimer);
    if (record.outcome === undefined) this.#notify(record, { kind: 'error', message });
  }

  #notify(record: TaskRecord, outcome: ToolTaskOutcome): void {
    const listeners = [...record.listeners];
    record.listeners.clear();
    for (const listener of listeners) listener(outcome);
  }
}
