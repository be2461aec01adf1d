import { customAlphabet } from 'nanoid';
import { ConflictError, DrainingError } from '../errors.js';
import type { ModelRegistry } from '../models/model-registry.js';
import type { OrsClient } from '../ors/client/ors-client.js';
import type { RunRequest } from '../protocol/run-request.js';
import type { RunSnapshot } from '../protocol/run-snapshot.js';
import { EnvCatalog } from './env-catalog.js';
import { IdempotencyKeys } from './idempotency-keys.js';
import { Run } from './run.js';
import { RunDirectory, type RunListQuery, type RunPage } from './run-directory.js';
import { type RetentionLimits, RunRetention } from './run-retention.js';
import { RunScheduler, type SchedulerLimits } from './run-scheduler.js';
import { TaskTracker } from './task-tracker.js';

export type { RunListQuery, RunPage } from './run-directory.js';

export interface RunLimits extends SchedulerLimits, RetentionLimits {
  maxEventsPerRun: number;
}

export interface RunRegistryOptions {
  ors: OrsClient;
  models: ModelRegistry;
  defaultEnv: string;
  limits: RunLimits;
  now?: () => number;
  /** Where a background task's unexpected failure is reported; default `console.error`. */
  log?: (message: string, error?: unknown) => void;
}

/** What `/health` counts. */
export interface RunStats {
  running: number;
  queued: number;
  finished: number;
  subscribers: number;
}

const newRunId = customAlphabet('0123456789abcdefghijklmnopqrstuvwxyz', 24);

/**
 * Every run of the server, as the routes see them: creates runs (validated, deduplicated by
 * idempotency key, started or queued), finds and lists them scoped to their owner, cancels and
 * forgets them, and drains on shutdown. Each job is its own module — {@link RunScheduler} (slots,
 * queue, episodes), {@link IdempotencyKeys}, {@link RunRetention} (orphan sweep, retention),
 * {@link RunDirectory} (lookup, list) — and this class only wires them. Another owner's run is 404.
 */
export class RunRegistry {
  readonly #o: RunRegistryOptions;
  readonly #now: () => number;
  readonly #catalog: EnvCatalog;
  readonly #tasks: TaskTracker;
  readonly #scheduler: RunScheduler;
  readonly #idempotency = new IdempotencyKeys();
  readonly #directory = new RunDirectory();
  readonly #retention: RunRetention;
  #draining = false;

  constructor(options: RunRegistryOptions) {
    this.#o = options;
    this.#now = options.now ?? Date.now;
    this.#catalog = new EnvCatalog(options.ors, this.#now);
    const log = options.log ?? ((message: string, error?: unknown) => console.error(message, error));
    this.#tasks = new TaskTracker((error) => log('background task failed:', error));
    this.#scheduler = new RunScheduler({
      ors: options.ors,
      models: options.models,
      limits: options.limits,
      tasks: this.#tasks,
      now: this.#now,
    });
    this.#retention = new RunRetention({
      limits: options.limits,
      now: this.#now,
      runs: () => this.#directory.values(),
      cancelOrphan: (run) => this.#scheduler.cancel(run, 'orphaned'),
      forget: (run) => this.#forget(run),
    });
  }

  get draining(): boolean {
    return this.#draining;
  }

  /**
   * Validates `request` and starts its run, or queues it when every slot is busy. With an
   * idempotency key already used by `owner`: the same body answers the existing run (`created:
   * false`; while that run is still being created, once it is, or with the error its creation
   * failed with), another body is a 409. Throws 503 while draining, 404 for an unknown environment,
   * 400 for a bad task or model, 429 when the queue is full.
   */
  async create(request: RunRequest, owner: string, idempotencyKey?: string): Promise<{ run: Run; created: boolean }> {
    if (this.#draining) throw new DrainingError();
    if (idempotencyKey === undefined) return { run: await this.#create(request, owner), created: true };
    const answer = await this.#idempotency.once(owner, idempotencyKey, request, () => this.#create(request, owner));
    if (!answer.created) answer.run.touch(this.#now());
    return answer;
  }

  async #create(request: RunRequest, owner: string): Promise<Run> {
    const model = this.#o.models.resolve(request.model).id;
    const env = request.env ?? this.#o.defaultEnv;
    const task = await this.#catalog.resolve(env, request.task);
    // Checked again after the await: the server may have begun draining, or the queue filled, meanwhile.
    if (this.#draining) throw new DrainingError();
    this.#scheduler.admit();
    const { secrets, ...kept } = request;
    const run = new Run(
      { id: `run_${newRunId()}`, owner, env, task, model, request: kept, createdAt: this.#now() },
      { maxEvents: this.#o.limits.maxEventsPerRun, now: this.#now },
    );
    this.#directory.add(run);
    this.#scheduler.submit(run, secrets);
    return run;
  }

  /** The run `id` with its log, if `owner` may see it (and touches it), else 404. */
  async open(id: string, owner: string): Promise<Run> {
    const run = this.#directory.get(id, owner);
    run.touch(this.#now());
    return run;
  }

  /** The snapshot of run `id`, if `owner` may see it (and touches it), else 404. */
  async snapshot(id: string, owner: string): Promise<RunSnapshot> {
    return (await this.open(id, owner)).snapshot();
  }

  /** `owner`'s runs, newest first (see {@link RunDirectory.list}). */
  async list(owner: string, query: RunListQuery): Promise<RunPage> {
    return this.#directory.list(owner, query);
  }

  /** Cancels `owner`'s run; idempotent. A queued run leaves the queue and ends at once. */
  async cancel(id: string, owner: string): Promise<RunSnapshot> {
    const run = await this.open(id, owner);
    this.#scheduler.cancel(run, 'client');
    return run.snapshot();
  }

  /** Forgets a finished run of `owner`; 409 while it is still queued or running. */
  async delete(id: string, owner: string): Promise<void> {
    const run = await this.open(id, owner);
    if (!run.finished)
      throw new ConflictError(
        `Run "${id}" is ${run.status}; cancel it first, then delete it once it has ended.`,
        'run_active',
      );
    this.#forget(run);
  }

  /** Cancels orphaned runs and forgets finished runs past their retention (also run every second). */
  sweep(): void {
    this.#retention.sweep();
  }

  /** Counts for `/health`. */
  async stats(): Promise<RunStats> {
    return this.localStats();
  }

  /** The counts this process knows without asking anyone: what `/health` shows, and shutdown waits on. */
  localStats(): RunStats {
    let finished = 0;
    let subscribers = 0;
    for (const run of this.#directory.values()) {
      if (run.finished) finished++;
      subscribers += run.subscribers;
    }
    return { running: this.#scheduler.running, queued: this.#scheduler.queued, finished, subscribers };
  }

  /**
   * Stops taking runs, cancels queued ones, lets running ones finish within `graceMs`, cancels the
   * rest, and resolves when every episode has ended (terminal event written, ORS session deleted).
   */
  async shutdown(graceMs: number): Promise<void> {
    this.#draining = true;
    await this.#scheduler.drain(graceMs);
    this.#retention.stop();
  }

  #forget(run: Run): void {
    this.#directory.remove(run.id);
    this.#idempotency.release(run.id);
  }
}
