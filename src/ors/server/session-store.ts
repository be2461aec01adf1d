import { performance } from 'node:perf_hooks';
import type { ServedEnvironment } from './environment-registry.js';
import {
  sessionBytesExceeded,
  sessionDeleted,
  sessionGone,
  sessionNotFound,
  setupFailed,
  tooManySessions,
} from './ors-http-errors.js';
import { OrsServerError } from './ors-server-error.js';

/** A session whose `setup` has finished successfully: what tool calls and prompts run against. */
export interface ReadySession {
  readonly id: string;
  readonly environment: ServedEnvironment;
  readonly state: unknown;
  /** Aborted when the session ends; handed to tools so none outlives its session. */
  readonly signal: AbortSignal;
}

export interface SessionStoreOptions {
  /** A session with no request and no running tool for this long is deleted (reaped). */
  idleMs: number;
  /** Sessions held at once; one more is a 429 until one ends. */
  maxSessions: number;
  /** Request bytes one session may receive in all (the task, the tool inputs it may keep); past it 413. */
  maxSessionBytes: number;
  /** True while the session has work in flight (a running tool), which is activity however old its last request. */
  isBusy(sessionId: string): boolean;
  /** Called as a session ends, before its teardown; `message` says why, for whoever still waits on it. */
  onEnd(sessionId: string, message: string): void;
  /** Where failures nobody else hears of go (a setup or teardown that threw). */
  logError(message: string, error: unknown): void;
}

/** How `setup` ended: the episode's state, or what it threw. */
type SetupOutcome = { ok: true; state: unknown } | { ok: false; error: unknown };

interface SessionRecord {
  readonly id: string;
  readonly environment: ServedEnvironment;
  readonly controller: AbortController;
  lastActivity: number;
  /** Request bytes received so far (`/create` and every call). */
  bytes: number;
  /** Resolves when `setup` has finished either way; never rejects. */
  readonly settled: Promise<SetupOutcome>;
  /** The settled outcome, once known; undefined while setup runs. */
  outcome: SetupOutcome | undefined;
  /** Resolves when the session ends, which wakes requests still waiting for its setup. */
  readonly ended: Promise<undefined>;
  readonly markEnded: () => void;
}

/** Deleted ids are remembered this long (and at most this many), so a late request's 404 says why the session is gone. */
const TOMBSTONE_MS = 60 * 60 * 1000;
const MAX_TOMBSTONES = 10_000;

/**
 * The sessions of one ORS server. `/create` registers a session and starts its `setup` in the
 * background; endpoints that need the state wait for it ({@link ready}), and learn 500 if setup
 * threw or 410 if the session ended while they waited (a request after that gets 404). Ending a session (`/delete`, idle reaping, shutdown)
 * aborts its signal, wakes its waiters, tells `onEnd`, then runs `teardown` once setup has settled.
 * The reaping timer runs only while sessions exist, and {@link close} stops it.
 */
export class SessionStore {
  readonly #options: SessionStoreOptions;
  readonly #sessions = new Map<string, SessionRecord>();
  readonly #tombstones = new Map<string, { at: number; why: string }>();
  /** Teardowns under way, by session id, so a repeated `/delete` and `close()` can await them. */
  readonly #ending = new Map<string, Promise<void>>();
  #sweepTimer: NodeJS.Timeout | undefined;
  #closed = false;

  constructor(options: SessionStoreOptions) {
    this.#options = options;
  }

  /**
   * Registers session `id` on `environment` and starts `setup` with `task` without waiting for it;
   * `bytes` is the size of the `/create` body, the first the session is charged. Throws what
   * {@link assertCreatable} throws, and 413 when `bytes` alone pass the session's limit. An id that
   * was deleted may be created again, as with the reference server.
   */
  create(
    id: string,
    environment: ServedEnvironment,
    task: unknown,
    secrets: Record<string, unknown>,
    bytes: number,
  ): void {
    this.assertCreatable(id);
    if (bytes > this.#options.maxSessionBytes) throw sessionBytesExceeded(id, 0, bytes, this.#options.maxSessionBytes);
    this.#tombstones.delete(id);
    const controller = new AbortController();
    let markEnded!: () => void;
    const ended = new Promise<undefined>((resolve) => {
      markEnded = () => resolve(undefined);
    });
    const record: SessionRecord = {
      id,
      environment,
      controller,
      lastActivity: performance.now(),
      bytes,
      settled: this.#runSetup(id, environment, task, secrets, controller.signal),
      outcome: undefined,
      ended,
      markEnded,
    };
    void record.settled.then((outcome) => {
      record.outcome = outcome;
    });
    this.#sessions.set(id, record);
    this.#sweepTimer ??= setInterval(() => this.#sweep(), sweepPeriod(this.#options.idleMs));
  }

  /**
   * Throws what {@link create} would throw for `id` — 400 for a live duplicate, 429 when `maxSessions`
   * are open, 503 after {@link close} — so `/create` can check before resolving its task.
   */
  assertCreatable(id: string): void {
    if (this.#closed) {
      throw new OrsServerError(
        'The ORS server is shutting down and takes no new sessions; retry against a running server.',
        { code: 'draining' },
      );
    }
    if (this.#sessions.size >= this.#options.maxSessions && !this.#sessions.has(id)) {
      throw tooManySessions(this.#options.maxSessions);
    }
    if (this.#sessions.has(id)) {
      throw new OrsServerError(
        `Session already exists: "${id}" was created before; get a fresh id from POST /create_session.`,
        { code: 'session_exists' },
      );
    }
  }

  /**
   * Counts `bytes` more received by session `id`, or throws 413 (counting nothing) when they would take
   * it past `maxSessionBytes`: what a session's environment can be made to keep is bounded, however
   * many calls bring it. Unknown ids are ignored (the request learns 404 elsewhere).
   */
  charge(id: string, bytes: number): void {
    const record = this.#sessions.get(id);
    if (record === undefined) return;
    if (record.bytes + bytes > this.#options.maxSessionBytes) {
      throw sessionBytesExceeded(id, record.bytes, bytes, this.#options.maxSessionBytes);
    }
    record.bytes += bytes;
  }

  /** Records activity on session `id` (any request carrying its id); unknown ids are ignored. */
  touch(id: string): void {
    const record = this.#sessions.get(id);
    if (record) record.lastActivity = performance.now();
  }

  /** Throws 404 when session `id` does not exist (never did, or was deleted); returns quietly while it lives (set up or not). */
  assertExists(id: string): void {
    this.#require(id);
  }

  /**
   * Session `id` once its setup has finished. Throws 404 (unknown, or deleted before the request),
   * 410 (deleted while waiting for setup), or 500 (setup threw — every call says so until the session is deleted).
   */
  async ready(id: string): Promise<ReadySession> {
    const record = this.#require(id);
    const outcome = record.outcome ?? (await Promise.race([record.settled, record.ended]));
    if (outcome === undefined || this.#sessions.get(id) !== record) throw this.#gone(id);
    if (!outcome.ok) throw setupFailed(id, outcome.error);
    return { id, environment: record.environment, state: outcome.state, signal: record.controller.signal };
  }

  /**
   * Ends session `id` and resolves after its teardown. Idempotent: an unknown or already deleted id
   * resolves at once, or when the teardown already under way finishes.
   */
  delete(id: string): Promise<void> {
    const record = this.#sessions.get(id);
    if (record === undefined) return this.#ending.get(id) ?? Promise.resolve();
    return this.#end(record, 'was deleted');
  }

  /** Ids of the sessions that exist: created and not yet ended, whether set up, setting up or failed. */
  ids(): string[] {
    return [...this.#sessions.keys()];
  }

  /** Refuses new sessions, stops the reaping timer, ends every session and resolves when all teardowns are done. Idempotent. */
  async close(): Promise<void> {
    this.#closed = true;
    for (const record of [...this.#sessions.values()])
      void this.#end(record, 'was closed because the ORS server shut down');
    await Promise.all(this.#ending.values());
  }

  /** Runs `setup` after the current tick, so even a synchronous throw is a failed setup, not a failed `/create`. */
  async #runSetup(
    id: string,
    environment: ServedEnvironment,
    task: unknown,
    secrets: Record<string, unknown>,
    signal: AbortSignal,
  ): Promise<SetupOutcome> {
    const { definition } = environment;
    try {
      await Promise.resolve();
      return { ok: true, state: await definition.setup({ task, secrets, sessionId: id, signal }) };
    } catch (error) {
      this.#options.logError(`setup of session "${id}" (${definition.name}) failed`, error);
      return { ok: false, error };
    }
  }

  #require(id: string): SessionRecord {
    const record = this.#sessions.get(id);
    if (record) return record;
    const tombstone = this.#tombstones.get(id);
    if (tombstone && performance.now() - tombstone.at < TOMBSTONE_MS) throw sessionDeleted(id, tombstone.why);
    throw sessionNotFound(id);
  }

  #gone(id: string): OrsServerError {
    return sessionGone(id, this.#tombstones.get(id)?.why ?? 'was deleted');
  }

  /** Returns the teardown promise, which never rejects; it is also kept in `#ending` until it settles. */
  #end(record: SessionRecord, why: string): Promise<void> {
    this.#sessions.delete(record.id);
    this.#remember(record.id, why);
    const message = `Session deleted: session "${record.id}" ${why}`;
    record.controller.abort(new Error(message));
    record.markEnded();
    this.#options.onEnd(record.id, message);
    if (this.#sessions.size === 0) this.#stopSweeping();
    const teardown = this.#teardown(record);
    this.#ending.set(record.id, teardown);
    void teardown.then(() => {
      if (this.#ending.get(record.id) === teardown) this.#ending.delete(record.id);
    });
    return teardown;
  }

  async #teardown(record: SessionRecord): Promise<void> {
    const outcome = await record.settled;
    if (!outcome.ok) return;
    try {
      await record.environment.definition.teardown?.(outcome.state);
    } catch (error) {
      this.#options.logError(
        `teardown of session "${record.id}" (${record.environment.definition.name}) failed`,
        error,
      );
    }
  }

  #remember(id: string, why: string): void {
    this.#tombstones.delete(id);
    this.#tombstones.set(id, { at: performance.now(), why });
    // Insertion order is age order, so the oldest go first.
    for (const oldest of this.#tombstones.keys()) {
      if (this.#tombstones.size <= MAX_TOMBSTONES) break;
      this.#tombstones.delete(oldest);
    }
  }

  #sweep(): void {
    const now = performance.now();
    for (const record of [...this.#sessions.values()]) {
      if (now - record.lastActivity >= this.#options.idleMs && !this.#options.isBusy(record.id)) {
        void this.#end(record, `expired after ${formatSeconds(this.#options.idleMs)} without activity`);
      }
    }
    for (const [id, tombstone] of this.#tombstones) {
      if (now - tombstone.at < TOMBSTONE_MS) break;
      this.#tombstones.delete(id);
    }
  }

  #stopSweeping(): void {
    clearInterval(this.#sweepTimer);
    this.#sweepTimer = undefined;
  }
}

/** Often enough that a session outlives its idle time by at most a quarter of it; never busier than 10 ms, never lazier than 5 s. */
function sweepPeriod(idleMs: number): number {
  return Math.min(Math.max(idleMs / 4, 10), 5_000);
}

function formatSeconds(ms: number): string {
  return `${Number((ms / 1000).toFixed(3))} s`;
}
