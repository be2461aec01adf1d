import { BadRequestError } from '../errors.js';
import type { RunListItem, RunSnapshot, RunStatus } from '../protocol/run-snapshot.js';
import type { EventLog } from './event-log.js';
import type { RunRecord } from './run-record.js';

/**
 * Where runs live (docs/protocol.md §8), the record side: their records, idempotency keys, the queue with
 * its quotas, retention and orphans. The live side — the logs as they are written and followed, and the
 * messages that steer a run — is the other port, `RunStreams`. The runs own both interfaces; two stores
 * implement them: in memory (one process, the default, `src/store/memory/`) and Redis (any number of
 * instances sharing one Redis, `src/store/redis/`). A store takes and gives records and logs of logged
 * events, never the objects that execute a run, and never calls into them: what an instance must act
 * on, it subscribes to. One suite of tests per port (test/store/run-store-contract.ts,
 * test/store/run-streams-contract.ts) holds both stores to the same answers.
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
  /** The run holds a slot of this instance: play it into `log`, published with `RunStreams.publish`. */
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

/** The runs the store counts, on every instance together (for `/health`). */
export interface RunCounts {
  running: number;
  queued: number;
  finished: number;
}

export interface RunStore {
  /** Claims `owner`'s idempotency `key` for a body hashed `hash` (see {@link KeyClaim}). */
  claimKey(owner: string, key: string, hash: string): Promise<KeyClaim>;
  /** Frees a key whose creation failed, so a retry can use it. */
  releaseKey(owner: string, key: string): Promise<void>;

  /**
   * Stores a new run — running here at once (`started`, with the log to publish it into) when
   * `startHere` and its key's running quota allow, queued otherwise — and binds its idempotency key; or
   * refuses it, storing nothing, when it may not wait: the queue, the key's share of it or the queued
   * bytes are full, or stored runs hold their whole byte budget with no finished run left to forget.
   */
  submit(run: NewRun): Promise<Admission>;
  /** Takes up to `max` queued runs this instance may start now (oldest first, skipping keys at their running quota). */
  claim(max: number): Promise<ClaimedRun[]>;
  /** Takes run `id` out of the queue for this instance to end (a cancel); undefined when it is not queued. */
  unqueue(id: string): Promise<ClaimedRun | undefined>;
  /**
   * How many more runs of `owner` the queue takes now: the least of what is left of the queue and of the
   * key's share of it (`Infinity` when neither is bounded). A rollout batch whose pairs would not fit is
   * refused before any is submitted.
   */
  queueRoom(owner: string): Promise<number>;
  /**
   * Calls `listener` whenever queued runs may have become claimable by this instance without its doing:
   * another instance queued one, or ended one that held its key's running quota. A queue the instances
   * share is looked at every `RUNBRIDGE_QUEUE_POLL_SECONDS`; one of this process alone changes only by
   * this instance's own hand, and never calls it. Returns the function that stops the calls.
   */
  onClaimable(listener: () => void): () => void;
  /**
   * The queued runs nobody else will run once this instance stops, taken out of the queue for it
   * to cancel: every one in memory, none in a store other instances share.
   */
  abandon(): Promise<ClaimedRun[]>;

  /** The snapshot of run `id` and its owner (undefined when unknown). */
  snapshot(id: string): Promise<StoredSnapshot | undefined>;
  /** `owner`'s runs, newest first, but for the pairs of rollout batches; a cursor naming no run of theirs is a 400 `invalid_cursor`. */
  list(owner: string, query: RunListQuery): Promise<RunPage>;
  /** Records that a caller looked at run `id` (runs nobody touches are orphans). */
  touch(id: string): Promise<void>;
  /** Forgets a finished run and frees its idempotency key; a queued or running run is kept. */
  forget(id: string): Promise<void>;
  /**
   * Upkeep, every `RUNBRIDGE_SWEEP_SECONDS`: forgets runs past retention or over the byte budget, ends the
   * runs no live instance executes (told through `RunStreams.onEnded`), and names the orphans.
   */
  sweep(): Promise<{ orphans: string[] }>;

  /** The running, queued and finished runs, on every instance together. */
  stats(): Promise<RunCounts>;
  /**
   * Counts of this instance alone, without asking anyone: the runs it holds slots for, and — for a store of
   * this process alone — its queue and finished runs (0 where the instances share them: only `stats` counts those).
   */
  localCounts(): RunCounts;
  /** Resolves when the store answers now (with Redis: a PING within about a second); `store_unavailable` otherwise. */
  ping(): Promise<void>;
  /** Stops the store's own work and connections, its streams' too; the runs it holds stay where they are. */
  close(): Promise<void>;
}
