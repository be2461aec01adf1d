import { BadRequestError } from '../errors.js';
import type { RunListItem, RunSnapshot, RunStatus } from '../protocol/run-snapshot.js';
import type { ControlMessage, ControlOutcome } from './control-message.js';
import type { EventLog } from './event-log.js';
import type { RunRecord } from './run-record.js';

/**
 * Where runs live (docs/protocol.md §8): their records, event logs, idempotency keys, the queue with its
 * quotas, and the messages that steer a run. The runs own this interface; two stores implement it:
 * in memory (one process, the default, `src/store/memory/`) and Redis (any number of instances
 * sharing one Redis, `src/store/redis/`). A store takes and gives records and logs of logged events,
 * never the objects that execute a run; one suite of tests (test/store/run-store-contract.ts) holds
 * both to the same answers.
 */

/** The bounds a store enforces when it admits, queues and keeps runs (`docs/configuration.md`). */
export interface StoreLimits {
  /** Runs waiting in the queue, all keys together. */
  maxQueuedRuns: number;
  /** Runs of one key running at once, on every instance together. */
  maxRunningPerKey: number;
  /** Runs of one key waiting in the queue. */
  maxQueuedPerKey: number;
  /** Bytes of the requests waiting in the queue (secrets and inputs included). */
  maxQueuedBytes: number;
  /** Bytes held by stored runs (their requests, events and details); a key's new run may forget that key's oldest finished runs. */
  maxStoredBytes: number;
  /** Bytes held by one key's stored runs, running ones included. */
  maxStoredBytesPerKey: number;
  /** Bytes one run may hold: its log refuses progress past it (`run_too_large`). */
  maxRunBytes: number;
  /** How long a finished run is kept. */
  retentionMs: number;
  /** A run nobody watched or asked about for this long is cancelled as orphaned. */
  orphanTtlMs: number;
  /** Events a run's log takes (`RUNBRIDGE_MAX_EVENTS_PER_RUN`). */
  maxEventsPerRun: number;
  /** The least time between two wakes of a run's subscribers (`RUNBRIDGE_STREAM_FLUSH_SECONDS`). */
  streamFlushMs: number;
}

/** A new run as the scheduler hands it to the store. */
export interface NewRun {
  record: RunRecord;
  /** Forwarded to ORS `/create` when the run starts; never in the record, events or snapshots. */
  secrets: Record<string, unknown> | undefined;
  /** Bytes of the request while it waits (secrets and input included). */
  requestBytes: number;
  /** The caller's `Idempotency-Key`, claimed with {@link RunStore.claimKey} before, and the hash of the body it is bound to. */
  idempotency?: { key: string; hash: string };
  /** This instance has a slot free: start the run here at once if its key's running quota allows. */
  startHere: boolean;
}

/** What {@link RunStore.submit} decided. */
export type Admission =
  /** The run holds a slot of this instance: play it into `log`. */
  | { kind: 'started'; log: EventLog }
  | { kind: 'queued' }
  /** `message` says which bound and what to do. */
  | { kind: 'refused'; code: 'queue_full' | 'key_queue_full' | 'store_full' | 'key_store_full'; message: string };

/** A run this instance is to execute, with what it needs to start it: its record, secrets, and the log to play it into. */
export interface ClaimedRun {
  record: RunRecord;
  secrets: Record<string, unknown> | undefined;
  /** The run's log, empty: every reader of the run follows this one (in memory) or what it is stored as. */
  log: EventLog;
}

/** A run as a store hands it out to read: its record and its log, live while the run goes on. */
export interface OpenedRun {
  record: RunRecord;
  log: EventLog;
}

/** What {@link RunStore.claimKey} found. */
export type KeyClaim =
  /** The key is now this caller's: create the run (then `submit` binds it, or `releaseKey` frees it). */
  | { kind: 'claimed' }
  /** The key names an existing run, created with the same body. */
  | { kind: 'run'; runId: string }
  /** The key was used with another body. */
  | { kind: 'conflict' }
  /** Another request is creating the run right now: ask again once `settled` resolves. */
  | { kind: 'pending'; settled: Promise<void> };

export interface RunListQuery {
  status?: RunStatus;
  limit: number;
  /** A run id: list the runs created before it (the `next` of the previous page). */
  after?: string;
}

export interface RunPage {
  /** The runs as a list shows them: each waiting call summarised (docs/protocol.md §2.6). */
  data: RunListItem[];
  /** The `after` of the next page, or null on the last one. */
  next: string | null;
}

/** The 400 for a list cursor that names no run of the caller's: an empty page would say they have seen every run. */
export function invalidListCursor(after: string): BadRequestError {
  return new BadRequestError(
    `The cursor ?after=${after} names no run of yours: it is unknown or was forgotten after its retention or a DELETE. Restart from the first page (no ?after=).`,
    { code: 'invalid_cursor' },
  );
}

/** A run's snapshot and who owns it, as any instance can read it. */
export interface StoredSnapshot {
  owner: string;
  snapshot: RunSnapshot;
}

/** What `/health` counts. */
export interface RunStats {
  running: number;
  queued: number;
  finished: number;
  /** Open event streams and waiting requests on this instance. */
  subscribers: number;
}

/** What the store needs of the instance that executes runs. */
export interface RunExecutor {
  /** Free slots on this instance right now. */
  freeSlots(): number;
  /** Delivers a control message for a run this instance executes; `gone` for a run it does not execute. */
  control(runId: string, message: ControlMessage): ControlOutcome;
  /**
   * Another instance ended a run this instance executes (it took this one for lost, `instance_lost`):
   * stop it; the store keeps that end, not what it writes from here on.
   */
  abandon(runId: string): void;
  /** Wakes the executor: queued runs may have become claimable. */
  wake(): void;
  /**
   * The store ended here a run that no live instance executed (its instance was lost, or this one held
   * it without executing it): the entries of `log` from `from` on are the closing events it wrote. Its
   * end is this instance's to tell — its webhooks, its end listener, its end line and count.
   */
  endedElsewhere(record: RunRecord, log: EventLog, from: number): void;
}

export interface RunStore {
  /** Connects the store to this instance's executor; called once, before anything else. */
  attach(executor: RunExecutor): void;

  /** Claims `owner`'s idempotency `key` for a body hashed `hash` (see {@link KeyClaim}). */
  claimKey(owner: string, key: string, hash: string): Promise<KeyClaim>;
  /** Frees a key whose creation failed, so a retry can use it. */
  releaseKey(owner: string, key: string): Promise<void>;

  /**
   * Stores a new run — running here at once (`started: true`) when `startHere` and its key's
   * running quota allow, queued otherwise — and binds its idempotency key; or refuses it, storing
   * nothing, when it may not wait: the queue, the key's share of it or the queued bytes are full,
   * or stored runs hold their whole byte budget with no finished run left to forget.
   */
  submit(run: NewRun): Promise<Admission>;
  /** Takes up to `max` queued runs this instance may start now (oldest first, skipping keys at their running quota). */
  claim(max: number): Promise<ClaimedRun[]>;
  /** Takes run `id` out of the queue for this instance to end (a cancel); undefined when it is not queued. */
  unqueue(id: string): Promise<ClaimedRun | undefined>;
  /**
   * Keeps the log of a run this instance executes (the one `submit`, `claim` or `unqueue` handed out)
   * as the episode writes it; resolves once its terminal event is stored and its slot freed — true when
   * the store holds the log as it was written here, false when it ended otherwise there (another
   * instance ended the run as lost) or the store closed first.
   */
  track(record: RunRecord, log: EventLog): Promise<boolean>;

  /** The run `id` with its log, to stream or page (undefined when unknown). */
  open(id: string): Promise<OpenedRun | undefined>;
  /**
   * How many more runs of `owner` the queue takes now: the least of what is left of the queue and of the
   * key's share of it (`Infinity` when neither is bounded). A rollout batch whose pairs would not fit is
   * refused before any is submitted.
   */
  queueRoom(owner: string): Promise<number>;
  /** The snapshot of run `id` and its owner (undefined when unknown). */
  snapshot(id: string): Promise<StoredSnapshot | undefined>;
  /** `owner`'s runs, newest first, but for the pairs of rollout batches; a cursor naming no run of theirs is a 400 `invalid_cursor`. */
  list(owner: string, query: RunListQuery): Promise<RunPage>;
  /** Records that a caller looked at run `id` (runs nobody touches are orphans). */
  touch(id: string): Promise<void>;
  /**
   * Counts a subscriber of run `id` on this instance in (a run watched is no orphan) and touches it; the
   * returned function counts it out and touches it again.
   */
  watch(id: string): () => void;
  /** Forgets a finished run and frees its idempotency key; a queued or running run is kept. */
  forget(id: string): Promise<void>;
  /**
   * Sends `message` to the instance executing run `id` (this one or another). A person's message is
   * counted where the run executes, so every instance refuses the one past the bound alike (`full`);
   * the count falls as the run takes them (`message.received`).
   */
  control(id: string, message: ControlMessage): Promise<ControlOutcome>;

  /** Upkeep, every `RUNBRIDGE_SWEEP_SECONDS`: forgets runs past retention or over the byte budget, finds orphans (and lost instances). */
  sweep(): Promise<{ orphans: string[] }>;
  stats(): Promise<RunStats>;
  /** Resolves when the store answers now (with Redis: a PING within about a second); `store_unavailable` otherwise. */
  ping(): Promise<void>;
  /** Counts of this instance alone, without asking anyone (shutdown waits on them). */
  localStats(): RunStats;
  /**
   * The queued runs nobody else will run once this instance stops, taken out of the queue for it
   * to cancel: every one in memory, none in a store other instances share.
   */
  abandon(): Promise<ClaimedRun[]>;
  /** Stops the store's own work and connections; the runs it holds stay where they are. */
  close(): Promise<void>;
}
