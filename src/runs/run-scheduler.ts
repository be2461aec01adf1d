import { CapacityError } from '../errors.js';
import type { ModelRegistry } from '../models/model-registry.js';
import type { OrsClient } from '../ors/client/ors-client.js';
import type { CancelReason } from '../protocol/run-events.js';
import type { Run } from './run.js';
import { RunCancelledError } from './run-cancelled-error.js';
import { runEpisode } from './run-episode.js';
import type { TaskTracker } from './task-tracker.js';

export interface SchedulerLimits {
  maxConcurrentRuns: number;
  maxQueuedRuns: number;
  runTimeoutMs: number;
  toolOutputEventChars: number;
}

export interface RunSchedulerOptions {
  ors: OrsClient;
  models: ModelRegistry;
  limits: SchedulerLimits;
  tasks: TaskTracker;
  now: () => number;
}

/** CONTRACT §2: `max_turns` defaults to 20. */
const DEFAULT_MAX_TURNS = 20;

interface Queued {
  run: Run;
  /** Forwarded to ORS `/create` when the run starts, then dropped. */
  secrets: Record<string, unknown> | undefined;
}

/**
 * Runs the episodes: at most `maxConcurrentRuns` at once, each as a tracked background task under
 * its time limit; the rest wait in a FIFO queue of at most `maxQueuedRuns`. Cancels queued and
 * running runs, estimates when a refused caller should come back, and drains on shutdown.
 */
export class RunScheduler {
  readonly #o: RunSchedulerOptions;
  readonly #queue: Queued[] = [];
  readonly #active = new Map<string, AbortController>();
  #meanRunMs = 0;

  constructor(options: RunSchedulerOptions) {
    this.#o = options;
  }

  get running(): number {
    return this.#active.size;
  }

  get queued(): number {
    return this.#queue.length;
  }

  /** Throws 429 `queue_full` when a new run could neither start nor wait in the queue. */
  admit(): void {
    const { maxConcurrentRuns, maxQueuedRuns } = this.#o.limits;
    if (this.#active.size >= maxConcurrentRuns && this.#queue.length >= maxQueuedRuns) {
      throw new CapacityError(
        `All ${maxConcurrentRuns} run slots are busy and the queue holds ${this.#queue.length} runs; retry later.`,
        this.retryAfterSeconds(),
      );
    }
  }

  /** Starts `run` when a slot is free, else queues it; `secrets` reach ORS `/create` and nothing else. */
  submit(run: Run, secrets: Record<string, unknown> | undefined): void {
    if (this.#active.size < this.#o.limits.maxConcurrentRuns) this.#start({ run, secrets });
    else this.#queue.push({ run, secrets });
  }

  /** True while `run` is queued or running here. */
  holds(run: Run): boolean {
    return this.#active.has(run.id) || this.#queue.some((entry) => entry.run === run);
  }

  /**
   * Cancels `run` with `reason`; a finished or already cancelled run is left alone. A queued run
   * leaves the queue and still gets a whole log (`run.started`, then `run.cancelled`), so every
   * client sees the same shape; its episode ends before it opens a session.
   */
  cancel(run: Run, reason: CancelReason): void {
    const queued = this.#queue.findIndex((entry) => entry.run === run);
    if (queued >= 0) {
      const [entry] = this.#queue.splice(queued, 1);
      this.#start(entry!, new RunCancelledError(reason));
      return;
    }
    const controller = this.#active.get(run.id);
    if (controller && !controller.signal.aborted) controller.abort(new RunCancelledError(reason));
  }

  /** Seconds a refused caller should wait: the mean run time scaled by how full the queue is, 1–60. */
  retryAfterSeconds(): number {
    const { maxConcurrentRuns } = this.#o.limits;
    const estimate = ((this.#meanRunMs || 5000) * (1 + this.#queue.length / maxConcurrentRuns)) / 1000;
    return Math.min(60, Math.max(1, Math.ceil(estimate)));
  }

  /**
   * Cancels queued runs, lets running ones finish within `graceMs`, cancels the rest, and resolves
   * when every episode has ended (terminal event written, ORS session deleted).
   */
  async drain(graceMs: number): Promise<void> {
    for (const { run } of [...this.#queue]) this.cancel(run, 'shutdown');
    let timer: NodeJS.Timeout | undefined;
    const grace = new Promise<void>((resolve) => {
      timer = setTimeout(resolve, graceMs);
    });
    await Promise.race([this.#o.tasks.idle(), grace]);
    clearTimeout(timer);
    for (const controller of this.#active.values()) {
      if (!controller.signal.aborted) controller.abort(new RunCancelledError('shutdown'));
    }
    await this.#o.tasks.idle();
  }

  #start({ run, secrets }: Queued, cancelled?: RunCancelledError): void {
    const { ors, models, limits, now } = this.#o;
    const controller = new AbortController();
    if (cancelled) controller.abort(cancelled);
    this.#active.set(run.id, controller);
    const timeout = setTimeout(() => controller.abort(new RunCancelledError('timeout')), limits.runTimeoutMs);
    const started = now();
    const episode = runEpisode({
      ors,
      model: models.resolve(run.model),
      env: run.env,
      task: run.task,
      input: run.request.input,
      instructions: run.request.instructions,
      sampling: run.request.sampling,
      maxTurns: run.request.max_turns ?? DEFAULT_MAX_TURNS,
      rewardReduction: run.request.reward_reduction,
      secrets,
      toolOutputEventChars: limits.toolOutputEventChars,
      signal: controller.signal,
      emit: (event, detail) => run.log.append(event, detail),
      now,
    });
    this.#o.tasks.track(
      episode.finally(() => {
        clearTimeout(timeout);
        this.#active.delete(run.id);
        const took = now() - started;
        this.#meanRunMs = this.#meanRunMs === 0 ? took : this.#meanRunMs * 0.9 + took * 0.1;
        this.#pump();
      }),
    );
  }

  #pump(): void {
    while (this.#active.size < this.#o.limits.maxConcurrentRuns && this.#queue.length > 0) {
      this.#start(this.#queue.shift()!);
    }
  }
}
