import type { DrawnTail } from './draw-tail.js';
import { MARKDOWN_LIMITS } from './markdown-limits.js';

/** What the page asks its worker (markdown-worker.ts): draw `tail` as `drawTail` would, within `budgetMs`. */
export interface DrawRequest {
  job: number;
  tail: string;
  careful: boolean;
  plainAt: number[];
  budgetMs: number;
}

/** What the worker answers: before each step that may take long (`drawTail`'s `step`), and once done. */
export type WorkerAnswer = { job: number; step: number } | { job: number; drawn: DrawnTail };

/**
 * How a draw ended: drawn; stopped at a step that took too long (`stoppedAt` -1 for lexing the whole
 * tail, else the start of the chunk), after `ms`; or not drawn, since no worker could run on this page.
 */
export type DrawOutcome = { drawn: DrawnTail } | { stoppedAt: number; ms: number } | { unavailable: true };

/** The part of a `Worker` the page uses, so a test can stand in for one. */
export interface WorkerPort {
  postMessage(request: DrawRequest): void;
  terminate(): void;
}

/** Starts a worker that calls `answer` with each of its answers, and `failed` when it cannot run or crashed; may throw. */
export type StartWorker = (answer: (data: WorkerAnswer) => void, failed: () => void) => WorkerPort;

/** How late a budget's timer may fire before the page's own thread counts as having been busy, and the worker is given a moment more. */
const LATE_MS = 50;

interface Job {
  request: Omit<DrawRequest, 'job'>;
  resolve: (outcome: DrawOutcome) => void;
  signal: AbortSignal | undefined;
}

/**
 * The page's Markdown worker: draws one tail at a time, in order, off the page's thread, so no text
 * a model writes can freeze the page. A step that takes longer than `stepMs` (one tail lexed, or one
 * chunk) is stopped by ending the worker — the only way to stop one — and said so; the next draw
 * starts a new worker. When no worker can run at all (the script cannot load, or a policy forbids
 * it), every draw says so at once.
 */
export class MarkdownWorker {
  readonly #start: StartWorker;
  readonly #stepMs: number;
  #port: WorkerPort | undefined;
  /** A worker answered once: a later error is a crash, not a page where none can run. */
  #answered = false;
  #unavailable = false;
  #queue: Job[] = [];
  #current: (Job & { job: number; started: number; step: number }) | undefined;
  #jobs = 0;
  #heard = 0;
  #timer: ReturnType<typeof setTimeout> | undefined;

  constructor(start: StartWorker, stepMs: number = MARKDOWN_LIMITS.stepMs) {
    this.#start = start;
    this.#stepMs = stepMs;
  }

  /** Draws `request` in the worker after the draws asked before it; one whose `signal` aborted meanwhile is skipped. */
  draw(request: Omit<DrawRequest, 'job'>, signal?: AbortSignal): Promise<DrawOutcome> {
    if (this.#unavailable) return Promise.resolve({ unavailable: true });
    return new Promise((resolve) => {
      this.#queue.push({ request, resolve, signal });
      if (this.#current === undefined) this.#next();
    });
  }

  #next(): void {
    let job = this.#queue.shift();
    while (job?.signal?.aborted) job = this.#queue.shift();
    if (job === undefined) return;
    const port = this.#port ?? this.#spawn();
    if (port === undefined) {
      job.resolve({ unavailable: true });
      return;
    }
    this.#current = { ...job, job: ++this.#jobs, started: performance.now(), step: -1 };
    this.#heard = this.#current.started;
    this.#arm();
    port.postMessage({ ...job.request, job: this.#jobs });
  }

  #spawn(): WorkerPort | undefined {
    try {
      const port: WorkerPort = this.#start(
        (data) => {
          if (port === this.#port) this.#answer(data);
        },
        () => this.#failed(port),
      );
      this.#port = port;
      return port;
    } catch {
      this.#giveUp();
      return undefined;
    }
  }

  #answer(data: WorkerAnswer): void {
    const current = this.#current;
    if (current === undefined || data.job !== current.job) return;
    this.#answered = true;
    this.#heard = performance.now();
    if ('step' in data) {
      current.step = data.step;
      this.#arm();
      return;
    }
    this.#finish({ drawn: data.drawn });
  }

  /** (Re)sets the timer of the step under way, due `stepMs` after the worker was last heard from. */
  #arm(late = false): void {
    clearTimeout(this.#timer);
    const due = this.#heard + this.#stepMs;
    this.#timer = setTimeout(() => this.#check(due, late), Math.max(0, due - performance.now()));
  }

  #check(due: number, late: boolean): void {
    const now = performance.now();
    if (now < this.#heard + this.#stepMs) {
      this.#arm();
    } else if (!late && now - due > LATE_MS) {
      // The page's own thread was busy past the time: what the worker said meanwhile may still wait to be read.
      clearTimeout(this.#timer);
      this.#timer = setTimeout(() => this.#check(due, true), LATE_MS);
    } else {
      this.#stop();
    }
  }

  /** Ends the worker in the middle of a step that took too long. */
  #stop(): void {
    const current = this.#current;
    this.#port?.terminate();
    this.#port = undefined;
    if (current) this.#finish({ stoppedAt: current.step, ms: performance.now() - current.started });
  }

  #failed(port: WorkerPort): void {
    if (port !== this.#port) return;
    if (!this.#answered) {
      port.terminate();
      this.#port = undefined;
      this.#giveUp();
      return;
    }
    // A worker that answered before and then crashed: as a step that never ends.
    this.#stop();
  }

  #finish(outcome: DrawOutcome): void {
    clearTimeout(this.#timer);
    const current = this.#current;
    this.#current = undefined;
    current?.resolve(outcome);
    this.#next();
  }

  /** No worker can run on this page: every draw, now and later, says so. */
  #giveUp(): void {
    this.#unavailable = true;
    clearTimeout(this.#timer);
    const waiting = [...(this.#current ? [this.#current] : []), ...this.#queue.splice(0)];
    this.#current = undefined;
    for (const job of waiting) job.resolve({ unavailable: true });
  }
}
