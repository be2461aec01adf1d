import { createHash } from 'node:crypto';
import { customAlphabet } from 'nanoid';
import { BadRequestError, CapacityError, ConflictError, DrainingError, NotFoundError } from '../errors.js';
import type { Model } from '../models/model.js';
import type { ModelRegistry } from '../models/model-registry.js';
import type { OrsClient } from '../ors/client/ors-client.js';
import type { RunRequest } from '../protocol/run-request.js';
import type { RunSnapshot, RunStatus } from '../protocol/run-snapshot.js';
import { EnvCatalog } from './env-catalog.js';
import { Run } from './run.js';
import { runEpisode } from './run-episode.js';
import { TaskTracker } from './task-tracker.js';

export interface RunLimits {
  maxConcurrentRuns: number;
  maxQueuedRuns: number;
  maxEventsPerRun: number;
  orphanTtlMs: number;
  retentionMs: number;
  runTimeoutMs: number;
  toolOutputEventChars: number;
  /** Period of `tool.progress` while a tool call runs; undefined sends none. */
  toolProgressMs?: number;
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

export interface RunListQuery {
  status?: RunStatus;
  limit: number;
  /** A run id: list the runs created before it (the `next` of the previous page). */
  after?: string;
}

const newRunId = customAlphabet('0123456789abcdefghijklmnopqrstuvwxyz', 24);
/** CONTRACT §2: `max_turns` defaults to 20. */
const DEFAULT_MAX_TURNS = 20;
/** How often orphans and expired runs are swept. */
const SWEEP_INTERVAL_MS = 1000;

/**
 * Every run of the server: creates them (validated, queued behind a concurrency cap), runs each
 * episode as a tracked background task, cancels orphans, forgets finished runs after their
 * retention, and drains on shutdown. Runs are scoped to their owner: another owner's run is 404.
 */
export class RunRegistry {
  readonly #o: RunRegistryOptions;
  readonly #now: () => number;
  readonly #runs = new Map<string, Run>();
  readonly #queue: Run[] = [];
  /**
   * Idempotency keys (`owner\0key`) by the creation they started. A key is taken before `create`'s
   * first await, so a concurrent duplicate waits for that creation instead of starting a second run.
   */
  readonly #idempotency = new Map<string, { hash: string; run: Promise<Run> }>();
  /** The idempotency key of each run that has one, so forgetting the run frees its key without a scan. */
  readonly #idempotencyKeys = new Map<Run, string>();
  /** Models resolved at creation (so a bad reference is a 400 then), handed to the episode at start. */
  readonly #models = new Map<Run, Model>();
  readonly #tasks: TaskTracker;
  readonly #catalog: EnvCatalog;
  readonly #sweeper: NodeJS.Timeout;
  #active = 0;
  #draining = false;
  #meanRunMs = 0;

  constructor(options: RunRegistryOptions) {
    this.#o = options;
    this.#now = options.now ?? Date.now;
    this.#catalog = new EnvCatalog(options.ors, this.#now);
    const log = options.log ?? ((message: string, error?: unknown) => console.error(message, error));
    this.#tasks = new TaskTracker((error) => log('background task failed:', error));
    this.#sweeper = setInterval(() => this.sweep(), SWEEP_INTERVAL_MS);
    // The sweeper must not keep a finished process alive; shutdown clears it anyway.
    this.#sweeper.unref();
  }

  get draining(): boolean {
    return this.#draining;
  }

  /**
   * Validates `request` and starts its run, or queues it when `maxConcurrentRuns` are running.
   * With an idempotency key already used by `owner`: the same body answers the existing run
   * (`created: false`; while that run is still being created, once it is, or with the error its
   * creation failed with), another body is a 409. Throws 503 while draining, 404 for an unknown
   * environment, 400 for a bad task or model, 429 when the queue is full.
   */
  async create(request: RunRequest, owner: string, idempotencyKey?: string): Promise<{ run: Run; created: boolean }> {
    if (this.#draining) throw new DrainingError();
    if (idempotencyKey === undefined) return { run: await this.#create(request, owner), created: true };

    const key = `${owner}\0${idempotencyKey}`;
    const hash = hashRequest(request);
    const seen = this.#idempotency.get(key);
    if (seen) {
      if (seen.hash !== hash) {
        throw new ConflictError(
          'This Idempotency-Key was already used with a different body; use a new key for a new run.',
          'idempotency_conflict',
        );
      }
      // Still being created (a concurrent duplicate) or created already: either way, the same run.
      const existing = await seen.run;
      existing.touch(this.#now());
      return { run: existing, created: false };
    }
    const creating = this.#create(request, owner, key);
    this.#idempotency.set(key, { hash, run: creating });
    try {
      return { run: await creating, created: true };
    } catch (error) {
      // No run holds the key, so a retry with it must be able to create one.
      this.#idempotency.delete(key);
      throw error;
    }
  }

  /** Validates `request`, then registers its run and starts or queues it; `idempotencyKey` is freed with the run. */
  async #create(request: RunRequest, owner: string, idempotencyKey?: string): Promise<Run> {
    const model = this.#o.models.resolve(request.model);
    const env = request.env ?? this.#o.defaultEnv;
    const task = await this.#catalog.resolve(env, request.task);
    // Checked again after the await: the server may have begun draining, or the queue filled, meanwhile.
    if (this.#draining) throw new DrainingError();
    const limits = this.#o.limits;
    if (this.#active >= limits.maxConcurrentRuns && this.#queue.length >= limits.maxQueuedRuns) {
      throw new CapacityError(
        `All ${limits.maxConcurrentRuns} run slots are busy and the queue holds ${this.#queue.length} runs; retry later.`,
        this.#retryAfterSeconds(),
      );
    }

    const run = new Run({
      id: `run_${newRunId()}`,
      owner,
      env,
      task,
      model: model.id,
      request,
      maxEvents: limits.maxEventsPerRun,
      now: this.#now,
    });
    this.#runs.set(run.id, run);
    if (idempotencyKey !== undefined) this.#idempotencyKeys.set(run, idempotencyKey);
    this.#models.set(run, model);
    if (this.#active < limits.maxConcurrentRuns) this.#start(run);
    else this.#queue.push(run);
    return run;
  }

  /** The run `id` if `owner` may see it (and touches it), else 404. */
  get(id: string, owner: string): Run {
    const run = this.#runs.get(id);
    if (!run || run.owner !== owner)
      throw new NotFoundError(
        `No run "${id}" here: it never existed, was forgotten after its retention, or belongs to another key.`,
        'run_not_found',
      );
    run.touch(this.#now());
    return run;
  }

  /**
   * `owner`'s runs, newest first, filtered by status, one page at a time. A cursor naming no run of
   * `owner`'s is a 400: the run may have been forgotten meanwhile, and an empty page would tell the
   * client it has seen every run.
   */
  list(owner: string, query: RunListQuery): { data: RunSnapshot[]; next: string | null } {
    const runs = [...this.#runs.values()].reverse();
    let start = 0;
    if (query.after !== undefined) {
      const index = runs.findIndex((run) => run.id === query.after && run.owner === owner);
      if (index < 0) {
        throw new BadRequestError(
          `The cursor ?after=${query.after} names no run of yours: it is unknown or was forgotten after its retention or a DELETE. Restart from the first page (no ?after=).`,
          { code: 'invalid_cursor' },
        );
      }
      start = index + 1;
    }
    const data: RunSnapshot[] = [];
    let next: string | null = null;
    for (let i = start; i < runs.length; i++) {
      const run = runs[i]!;
      if (run.owner !== owner || (query.status && run.status !== query.status)) continue;
      if (data.length === query.limit) {
        next = data[data.length - 1]!.run_id;
        break;
      }
      data.push(run.snapshot());
    }
    return { data, next };
  }

  /** Cancels `owner`'s run; idempotent. A queued run leaves the queue and ends at once. */
  cancel(id: string, owner: string): Run {
    const run = this.get(id, owner);
    this.#cancel(run, 'client');
    return run;
  }

  /** Forgets a finished run of `owner`; 409 while it is still queued or running. */
  delete(id: string, owner: string): void {
    const run = this.get(id, owner);
    if (!run.finished)
      throw new ConflictError(
        `Run "${id}" is ${run.status}; cancel it first, then delete it once it has ended.`,
        'run_active',
      );
    this.#forget(run);
  }

  /** Cancels orphaned runs and forgets finished runs past their retention. Runs every sweep interval. */
  sweep(): void {
    const now = this.#now();
    const { orphanTtlMs, retentionMs } = this.#o.limits;
    for (const run of this.#runs.values()) {
      if (run.finished) {
        if (now - (run.finishedAt ?? now) >= retentionMs) this.#forget(run);
      } else if (run.subscribers === 0 && now - run.lastTouchedAt >= orphanTtlMs) {
        this.#cancel(run, 'orphaned');
      }
    }
  }

  /** Counts for `/health`. */
  stats(): { running: number; queued: number; finished: number; subscribers: number } {
    let finished = 0;
    let subscribers = 0;
    for (const run of this.#runs.values()) {
      if (run.finished) finished++;
      subscribers += run.subscribers;
    }
    return { running: this.#active, queued: this.#queue.length, finished, subscribers };
  }

  /**
   * Stops taking runs, cancels queued ones, lets running ones finish within `graceMs`, cancels the
   * rest, and resolves when every episode has ended (terminal event written, ORS session deleted).
   */
  async shutdown(graceMs: number): Promise<void> {
    this.#draining = true;
    for (const run of [...this.#queue]) this.#cancel(run, 'shutdown');
    let timer: NodeJS.Timeout | undefined;
    const grace = new Promise<void>((resolve) => {
      timer = setTimeout(resolve, graceMs);
    });
    await Promise.race([this.#tasks.idle(), grace]);
    clearTimeout(timer);
    for (const run of this.#runs.values()) run.cancel('shutdown');
    await this.#tasks.idle();
    clearInterval(this.#sweeper);
  }

  #cancel(run: Run, reason: 'client' | 'orphaned' | 'shutdown'): void {
    const queued = this.#queue.indexOf(run);
    run.cancel(reason);
    if (queued >= 0) {
      // A queued run still gets a whole log (run.started, then run.cancelled) so every client
      // sees the same shape; the episode ends before it opens a session.
      this.#queue.splice(queued, 1);
      this.#start(run);
    }
  }

  #start(run: Run): void {
    this.#active++;
    const limits = this.#o.limits;
    const timeout = setTimeout(() => run.cancel('timeout'), limits.runTimeoutMs);
    const started = this.#now();
    const model = this.#models.get(run)!;
    this.#models.delete(run);
    const episode = runEpisode({
      ors: this.#o.ors,
      model,
      env: run.env,
      task: run.task,
      input: run.request.input,
      instructions: run.request.instructions,
      sampling: run.request.sampling,
      maxTurns: run.request.max_turns ?? DEFAULT_MAX_TURNS,
      rewardReduction: run.request.reward_reduction,
      secrets: run.takeSecrets(),
      toolOutputEventChars: limits.toolOutputEventChars,
      toolProgressMs: limits.toolProgressMs,
      signal: run.controller.signal,
      emit: (event) => run.log.append(event),
      now: this.#now,
    });
    this.#tasks.track(
      episode
        .then((record) => {
          run.record = record;
        })
        .finally(() => {
          clearTimeout(timeout);
          this.#active--;
          const took = this.#now() - started;
          this.#meanRunMs = this.#meanRunMs === 0 ? took : this.#meanRunMs * 0.9 + took * 0.1;
          this.#pump();
        }),
    );
  }

  #pump(): void {
    while (this.#active < this.#o.limits.maxConcurrentRuns && this.#queue.length > 0) {
      this.#start(this.#queue.shift()!);
    }
  }

  #forget(run: Run): void {
    this.#runs.delete(run.id);
    const key = this.#idempotencyKeys.get(run);
    if (key !== undefined) {
      this.#idempotency.delete(key);
      this.#idempotencyKeys.delete(run);
    }
  }

  #retryAfterSeconds(): number {
    const { maxConcurrentRuns } = this.#o.limits;
    const estimate = ((this.#meanRunMs || 5000) * (1 + this.#queue.length / maxConcurrentRuns)) / 1000;
    return Math.min(60, Math.max(1, Math.ceil(estimate)));
  }
}

/** A stable hash of a request body (key order does not matter), secrets included but never stored. */
function hashRequest(request: RunRequest): string {
  return createHash('sha256').update(canonicalJson(request)).digest('hex');
}

function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([key, item]) => `${JSON.stringify(key)}:${canonicalJson(item)}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}
