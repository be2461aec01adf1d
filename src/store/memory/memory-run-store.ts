import { isWaitingStatus } from '../../protocol/run-status.js';
import { newRunLog, recordBytes } from '../../runs/run-record.js';
import type {
  Admission,
  ClaimedRun,
  KeyClaim,
  NewRun,
  RunCounts,
  RunListQuery,
  RunPage,
  RunStore,
  StoredSnapshot,
  StoreLimits,
} from '../../runs/run-store.js';
import { snapshotOf } from '../../runs/snapshot-of.js';
import { keyStoreFull, storeFull } from '../refusals.js';
import { SubscriberCount } from '../subscriber-count.js';
import { IdempotencyKeys } from './idempotency-keys.js';
import { MemoryRunStreams } from './memory-run-streams.js';
import { type MemoryRun, RunDirectory, touchRun } from './run-directory.js';
import { RunQueue } from './run-queue.js';
import { StoredBytes } from './stored-bytes.js';

/**
 * The embedded store (the default): every run of this one process, in memory. Nothing to start;
 * nothing survives the process. A run's log is made here when the run is submitted; its live side,
 * {@link MemoryRunStreams} (`streams`), shares the runs and the queue.
 */
export class MemoryRunStore implements RunStore {
  readonly #limits: StoreLimits;
  readonly #now: () => number;
  readonly #directory = new RunDirectory();
  readonly #stored: StoredBytes;
  readonly #keys = new IdempotencyKeys();
  readonly #queue: RunQueue;
  /** The live side of these runs: their logs as they are written and followed, and their control messages. */
  readonly streams: MemoryRunStreams;

  /** `stored` counts what the runs hold, and what else shares their budget (the rollout batches' records). */
  constructor(limits: StoreLimits, now: () => number = Date.now, stored = new StoredBytes()) {
    this.#limits = limits;
    this.#now = now;
    this.#stored = stored;
    this.#queue = new RunQueue(limits);
    this.streams = new MemoryRunStreams(this.#directory, this.#queue, now);
  }

  async claimKey(owner: string, key: string, hash: string): Promise<KeyClaim> {
    return this.#keys.claim(owner, key, hash);
  }

  async releaseKey(owner: string, key: string): Promise<void> {
    this.#keys.release(owner, key);
  }

  async submit(entry: NewRun): Promise<Admission> {
    const { record } = entry;
    const { maxStoredBytes, maxStoredBytesPerKey } = this.#limits;
    const bytes = recordBytes(record);
    this.#makeRoom(record.owner, bytes);
    const mine = this.#stored.held(record.owner);
    if (mine + bytes > maxStoredBytesPerKey) return keyStoreFull(mine, maxStoredBytesPerKey);
    const held = this.#stored.held();
    if (held + bytes > maxStoredBytes) return storeFull(held, maxStoredBytes);
    const log = newRunLog(record, {
      maxEvents: this.#limits.maxEventsPerRun,
      maxRunBytes: this.#limits.maxRunBytes,
      wakeMs: this.#limits.streamFlushMs,
      now: this.#now,
      account: this.#stored.accountOf(record.owner),
    });
    const admission = this.#queue.admit(entry, log);
    if (admission.kind === 'refused') return admission;
    this.#stored.add(record.owner, bytes);
    this.#directory.add({
      record,
      recordBytes: bytes,
      log,
      touchedAt: record.createdAt,
      subscribers: new SubscriberCount(),
    });
    if (entry.idempotency !== undefined) this.#keys.bind(record.owner, entry.idempotency.key, record.id);
    return admission.kind === 'started' ? { kind: 'started', log } : admission;
  }

  async claim(max: number): Promise<ClaimedRun[]> {
    return this.#queue.claim(max);
  }

  async unqueue(id: string): Promise<ClaimedRun | undefined> {
    return this.#queue.unqueue(id);
  }

  async queueRoom(owner: string): Promise<number> {
    return this.#queue.room(owner);
  }

  /** Never calls `listener`: only this instance queues and ends the runs of its own queue, and it wakes itself. */
  onClaimable(_listener: () => void): () => void {
    return () => undefined;
  }

  async snapshot(id: string): Promise<StoredSnapshot | undefined> {
    const run = this.#directory.find(id);
    return run && { owner: run.record.owner, snapshot: snapshotOf(run.record, run.log) };
  }

  async list(owner: string, query: RunListQuery): Promise<RunPage> {
    return this.#directory.list(owner, query);
  }

  async touch(id: string): Promise<void> {
    const run = this.#directory.find(id);
    if (run) touchRun(run, this.#now());
  }

  async forget(id: string): Promise<void> {
    // A queued or running run stays: its executor still writes to it, and its slot is still counted.
    if (this.#directory.find(id)?.log.terminal) this.#forget(id);
  }

  async sweep(): Promise<{ orphans: string[] }> {
    const now = this.#now();
    const { orphanTtlMs, retentionMs } = this.#limits;
    const orphans: string[] = [];
    for (const run of [...this.#directory.values()]) {
      const { log } = run;
      if (log.terminal) {
        if (now - (log.finishedAt ?? now) >= retentionMs) this.#forget(run.record.id);
      } else if (
        // A rollout batch's pair is kept by its batch, never orphaned.
        run.record.rollout === undefined &&
        run.subscribers.count === 0 &&
        !isWaitingStatus(log.summary.status) &&
        now - run.touchedAt >= orphanTtlMs
      ) {
        orphans.push(run.record.id);
      }
    }
    return { orphans };
  }

  async ping(): Promise<void> {}

  async stats(): Promise<RunCounts> {
    return this.localCounts();
  }

  localCounts(): RunCounts {
    let finished = 0;
    for (const run of this.#directory.values()) if (run.log.terminal) finished++;
    return { running: this.#queue.running, queued: this.#queue.length, finished };
  }

  async abandon(): Promise<ClaimedRun[]> {
    return this.#queue.drain();
  }

  async close(): Promise<void> {}

  #forget(id: string): void {
    const run = this.#directory.find(id);
    if (run) this.#stored.add(run.record.owner, -storedBytes(run));
    this.#directory.remove(id);
    this.#keys.forget(id);
  }

  /**
   * Forgets `owner`'s own finished runs, the longest finished first, until `bytes` more fit in both the
   * key's share and the whole budget: a key makes room only from its own runs, never from another's.
   */
  #makeRoom(owner: string, bytes: number): void {
    const { maxStoredBytes, maxStoredBytesPerKey } = this.#limits;
    let excess = Math.max(
      this.#stored.held() + bytes - maxStoredBytes,
      this.#stored.held(owner) + bytes - maxStoredBytesPerKey,
    );
    if (excess <= 0) return;
    const finished = [...this.#directory.values()]
      .filter((run) => run.record.owner === owner && run.log.terminal)
      .sort((a, b) => (a.log.finishedAt ?? 0) - (b.log.finishedAt ?? 0));
    for (const run of finished) {
      if (excess <= 0) break;
      excess -= storedBytes(run);
      this.#forget(run.record.id);
    }
  }
}

/** What a run holds: its request and every entry of its log, in characters of JSON (`RUNBRIDGE_MAX_STORED_BYTES`). */
function storedBytes(run: MemoryRun): number {
  return run.recordBytes + run.log.bytes;
}
