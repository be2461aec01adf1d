import type { RolloutBatchRecord } from './rollout-batch-record.js';

/**
 * Where the service's rollout batches live (docs/rollouts.md, "The service"), beside the runs and in the
 * same store: each batch's record, where each of its pairs stands, and its log of trajectory records.
 * The rollout service owns this interface; the memory and Redis stores implement it, and one suite
 * (test/store/rollout-store-contract.ts) holds both to the same answers. What makes a pair recorded
 * exactly once is {@link RolloutBatchStore.settle}: atomic, keyed on the pair and its attempt.
 */

/** Where one pair stands: the run of its current attempt, and whether that attempt was settled. */
export interface PairState {
  run: string;
  attempt: number;
  /** `open` while the attempt's run has not been settled; `done` once the pair is recorded (or dropped by a cancel). */
  state: 'open' | 'done';
}

/** A batch as the store holds it. */
export interface StoredBatch {
  record: RolloutBatchRecord;
  /** Epoch ms of the cancel, or null. */
  cancelledAt: number | null;
  /** Epoch ms at which the batch ended (its last pair recorded, or the cancel), or null while it goes on. */
  finishedAt: number | null;
  /** Records in its log. */
  records: number;
  /** Set when it was stopped because its next record did not fit in the stored bytes: which budget was full. */
  stopped?: StoreBudget;
}

/** The byte budgets a batch's records count against, with the runs' (`RUNBRIDGE_MAX_STORED_BYTES`, `…_PER_KEY`). */
export type StoreBudget = 'store_full' | 'key_store_full';

/** The bytes of JSON stored runs and batch records may hold, in all and per owner. */
export interface StoredByteLimits {
  maxStoredBytes: number;
  maxStoredBytesPerKey: number;
}

/** What {@link RolloutBatchStore.create} did. */
export type BatchCreation =
  | { kind: 'created' }
  /** The idempotency key names this batch, created with the same body. */
  | { kind: 'existing'; id: string }
  /** The key was used with another body. */
  | { kind: 'conflict' }
  /** The batch's own record did not fit in the stored bytes, even once the owner's ended batches were forgotten. */
  | { kind: 'full'; budget: StoreBudget };

/** What an idempotency key names: a batch made with the same body, or one made with another. */
export type NamedBatch = Extract<BatchCreation, { kind: 'existing' | 'conflict' }>;

/** How an attempt of a pair is settled. */
export type Settlement =
  /** Its trajectory record (JSON) and compact outcome (JSON) go into the batch's log. */
  | { kind: 'record'; record: string; outcome: string }
  /** It failed with retries left: the pair's next attempt is run `next`. */
  | { kind: 'retry'; next: string }
  /** Its run was never submitted (see `RolloutService.sweep`): run `next` plays the same attempt instead. */
  | { kind: 'replace'; next: string };

/**
 * What {@link RolloutBatchStore.settle} did: `recorded` (the record is in the log, at `seq`), `retry` (the
 * pair's attempt moved on, or its run was replaced: submit run `next`), `cancelled` (the batch was cancelled: the pair is done,
 * unrecorded), `refused` (the record did not fit in the owner's share or the store's total of stored bytes,
 * even once the owner's own ended batches were forgotten: the pair is done, unrecorded, and the batch is
 * stopped — cancelled, with `stopped` saying which budget was full), or `stale` (that attempt was settled
 * already, or the batch is gone): nothing to do.
 */
export type SettleOutcome = 'recorded' | 'retry' | 'cancelled' | 'refused' | 'stale';

export interface BatchPage {
  data: StoredBatch[];
  /** The `after` of the next page, or null on the last one. */
  next: string | null;
}

export interface RolloutBatchStore {
  /**
   * Stores a new batch whose pair `n` is played first by run `runs[n]`, binding `owner`'s idempotency
   * key to it; or answers the batch the key already names (same body hash), or a conflict (another body).
   * Its record counts against the stored bytes as its records will (see {@link settle}): `full` when it
   * does not fit, once the owner's own ended batches are forgotten.
   */
  create(
    batch: RolloutBatchRecord,
    runs: readonly string[],
    idempotency?: { key: string; hash: string },
  ): Promise<BatchCreation>;
  /**
   * What `owner`'s idempotency key names, as {@link create} would answer it — the batch made with the
   * same body hash (`existing`), or a `conflict` — or undefined while it names no batch that exists.
   */
  named(owner: string, idempotency: { key: string; hash: string }): Promise<NamedBatch | undefined>;
  /** The batch `id` (undefined when unknown or forgotten). */
  get(id: string): Promise<StoredBatch | undefined>;
  /** Where each pair of batch `id` stands, in plan order (empty when unknown). */
  pairs(id: string): Promise<PairState[]>;
  /** The compact outcomes (JSON) of the batch's records, in log order. */
  outcomes(id: string): Promise<string[]>;
  /**
   * Settles attempt `attempt` of pair `pair`, played by run `run`, at `now`, atomically and once: of
   * every caller settling the same attempt, one gets its outcome, the others `stale`. The record that
   * completes the batch also ends it. A record counts, with its outcome, against its owner's share and
   * the total of stored bytes, as runs do: to make room the owner's own ended batches are forgotten,
   * the oldest first (never another owner's); with none left, it is `refused`.
   */
  settle(
    id: string,
    pair: number,
    run: string,
    attempt: number,
    settlement: Settlement,
    now: number,
  ): Promise<SettleOutcome>;
  /** Marks batch `id` cancelled at `now` (and ended, unless it ended before); its log takes no more records. */
  cancel(id: string, now: number): Promise<void>;
  /** Up to `max` records (JSON) of batch `id` after seq `after` (-1: from the first), in log order. */
  records(id: string, after: number, max: number): Promise<string[]>;
  /**
   * Resolves once batch `id` may have changed since the caller last read it — a record added, or it
   * ended — or after `ms`, or when `signal` aborts.
   */
  changed(id: string, ms: number, signal: AbortSignal): Promise<void>;
  /** `owner`'s batches, newest first; `after` names the last batch of the previous page (unknown: 400 `invalid_cursor`). */
  list(owner: string, query: { limit: number; after?: string }): Promise<BatchPage>;
  /** The ids of the batches that have not ended, for the sweep that settles pairs whose settling was cut short. */
  unfinished(): Promise<string[]>;
  /** Forgets batch `id`: its record, pairs, log and idempotency key (its runs are the runs' store's). */
  forget(id: string): Promise<void>;
  /** Forgets the batches that ended at or before `endedBy` (a batch is kept as long as a run). */
  sweep(endedBy: number): Promise<void>;
}
