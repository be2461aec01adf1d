import type { StopSignal } from '../sse/stop-signal.js';

/** How a wait on a log ended: it grew, the reader's idle period passed, its signal aborted, or the log stopped following its store. */
export type WaitResult = 'appended' | 'timeout' | 'aborted' | 'interrupted';

/** What a reader needs of a log (an `EventLog` has it): how long it is, whether it stopped following its store, and its wakes. */
export interface WakingLog {
  readonly length: number;
  readonly interrupted: boolean;
  nextWake(): Promise<void>;
}

/**
 * One reader's waits on an event log. A reader that waits again and again (a subscriber, once
 * per burst of events) keeps one idle timer and one abort listener for all its waits, instead of
 * setting both up and tearing them down per wait; with many subscribers that per-wait work showed in
 * the fan-out profile (`bench/`, benchmark 1). Both are set up at the first wait that has to park.
 */
export class LogReader {
  readonly #log: WakingLog;
  readonly #idleMs: number;
  readonly #signal: StopSignal | undefined;
  #timer: NodeJS.Timeout | undefined;
  #idle = false;
  #settle: ((result: WaitResult) => void) | undefined;

  /** A reader whose idle period is `idleMs`; `close` it when done with it. */
  constructor(log: WakingLog, idleMs: number, signal?: StopSignal) {
    this.#log = log;
    this.#idleMs = idleMs;
    this.#signal = signal;
  }

  /**
   * Resolves once the log holds more than `length` events (`appended`, at once if it already does),
   * once `idleMs` passed since the first wait or the last {@link active} (`timeout`, the reader's cue
   * for a keep-alive), when the signal aborts (`aborted`), or once the log is
   * interrupted (`interrupted`). A finished log never grows, so waiting on it past its
   * end resolves only by timeout or abort.
   */
  wait(length: number): Promise<WaitResult> {
    const log = this.#log;
    if (log.length > length) return Promise.resolve('appended');
    if (this.#signal?.aborted) return Promise.resolve('aborted');
    if (log.interrupted) return Promise.resolve('interrupted');
    if (this.#idle) return Promise.resolve('timeout');
    if (this.#timer === undefined) {
      this.#timer = setTimeout(this.#onIdle, this.#idleMs);
      this.#signal?.addEventListener('abort', this.#onAbort, { once: true });
    }
    return new Promise((resolve) => {
      this.#settle = resolve;
      void log.nextWake().then(() => {
        if (this.#settle !== resolve) return;
        this.#settle = undefined;
        resolve(log.interrupted ? 'interrupted' : 'appended');
      });
    });
  }

  /** The reader wrote something: its idle period starts again. */
  active(): void {
    this.#idle = false;
    this.#timer?.refresh();
  }

  /** Stops the timer and the abort listener. */
  close(): void {
    // Both exist only once a wait has parked; a stream served at once (a replay) never parks, and
    // removing a listener from an `AbortSignal` costs even when there is none.
    if (this.#timer === undefined) return;
    clearTimeout(this.#timer);
    this.#signal?.removeEventListener('abort', this.#onAbort);
  }

  readonly #onIdle = (): void => {
    this.#idle = true;
    this.#wakeWith('timeout');
  };

  readonly #onAbort = (): void => this.#wakeWith('aborted');

  #wakeWith(result: WaitResult): void {
    const settle = this.#settle;
    this.#settle = undefined;
    settle?.(result);
  }
}

/**
 * Resolves once `log` holds more than `length` events (`appended`, at once if it already does), after
 * `timeoutMs` (`timeout`), when `signal` aborts, or once the log is interrupted. For one wait; a reader
 * that waits many times keeps a {@link LogReader}.
 */
export async function waitForAppend(
  log: WakingLog,
  length: number,
  timeoutMs: number,
  signal?: StopSignal,
): Promise<WaitResult> {
  const reader = new LogReader(log, timeoutMs, signal);
  try {
    return await reader.wait(length);
  } finally {
    reader.close();
  }
}
