import { isWaitingStatus } from '../../protocol/run-snapshot.js';
import type { Run } from '../../runs/run.js';
import type {
  Admission,
  ClaimedRun,
  ControlMessage,
  KeyClaim,
  NewRun,
  RunExecutor,
  RunListQuery,
  RunPage,
  RunStats,
  RunStore,
  StoredSnapshot,
  StoreLimits,
} from '../run-store.js';
import { IdempotencyKeys } from './idempotency-keys.js';
import { RunDirectory } from './run-directory.js';
import { RunQueue } from './run-queue.js';

/**
 * The embedded store (the default): every run of this one process, in memory. Nothing to start;
 * nothing survives the process. The log of a run is its `Run`'s own `EventLog`, so appending an
 * event costs nothing beyond the log itself.
 */
export class MemoryRunStore implements RunStore {
  readonly #limits: StoreLimits;
  readonly #now: () => number;
  readonly #directory = new RunDirectory();
  readonly #keys = new IdempotencyKeys();
  readonly #queue: RunQueue;
  #executor: RunExecutor | undefined;

  constructor(limits: StoreLimits, now: () => number = Date.now) {
    this.#limits = limits;
    this.#now = now;
    this.#queue = new RunQueue(limits);
  }

  attach(executor: RunExecutor): void {
    this.#executor = executor;
  }

  async claimKey(owner: string, key: string, hash: string): Promise<KeyClaim> {
    return this.#keys.claim(owner, key, hash);
  }

  async releaseKey(owner: string, key: string): Promise<void> {
    this.#keys.release(owner, key);
  }

  async submit(entry: NewRun): Promise<Admission> {
    const { run } = entry;
    this.#makeRoom(run.storedBytes);
    const held = this.#storedBytes();
    if (held + run.storedBytes > this.#limits.maxStoredBytes) {
      return {
        kind: 'refused',
        code: 'store_full',
        message: `Stored runs hold ${held} bytes of the ${this.#limits.maxStoredBytes} allowed (RUNBRIDGE_MAX_STORED_BYTES) and none has finished to make room; retry once some runs have ended, or delete finished ones.`,
      };
    }
    const admission = this.#queue.admit(entry);
    if (admission.kind === 'refused') return admission;
    this.#directory.add(run);
    if (entry.idempotencyKey !== undefined) this.#keys.bind(run.owner, entry.idempotencyKey, run.id);
    return admission;
  }

  async claim(max: number): Promise<ClaimedRun[]> {
    return this.#queue.claim(max);
  }

  async unqueue(id: string): Promise<ClaimedRun | undefined> {
    return this.#queue.unqueue(id);
  }

  track(run: Run): Promise<void> {
    return new Promise((resolve) => {
      const done = () => {
        this.#queue.ended(run.owner);
        resolve();
      };
      if (run.finished) return done();
      const stop = run.log.onAppend(() => {
        if (!run.finished) return;
        stop();
        done();
      });
    });
  }

  async open(id: string): Promise<Run | undefined> {
    return this.#directory.find(id);
  }

  async snapshot(id: string): Promise<StoredSnapshot | undefined> {
    const run = this.#directory.find(id);
    return run && { owner: run.owner, snapshot: run.snapshot() };
  }

  async list(owner: string, query: RunListQuery): Promise<RunPage> {
    return this.#directory.list(owner, query);
  }

  async touch(id: string): Promise<void> {
    this.#directory.find(id)?.touch(this.#now());
  }

  async forget(id: string): Promise<void> {
    this.#forget(id);
  }

  async control(id: string, message: ControlMessage): Promise<void> {
    this.#executor?.control(id, message);
  }

  async sweep(): Promise<{ orphans: string[] }> {
    const now = this.#now();
    const { orphanTtlMs, retentionMs } = this.#limits;
    const orphans: string[] = [];
    for (const run of [...this.#directory.values()]) {
      if (run.finished) {
        if (now - (run.finishedAt ?? now) >= retentionMs) this.#forget(run.id);
      } else if (run.subscribers === 0 && !isWaitingStatus(run.status) && now - run.lastTouchedAt >= orphanTtlMs) {
        orphans.push(run.id);
      }
    }
    this.#makeRoom(0);
    return { orphans };
  }

  async stats(): Promise<RunStats> {
    return this.localStats();
  }

  localStats(): RunStats {
    let finished = 0;
    let subscribers = 0;
    for (const run of this.#directory.values()) {
      if (run.finished) finished++;
      subscribers += run.subscribers;
    }
    return { running: this.#queue.running, queued: this.#queue.length, finished, subscribers };
  }

  async abandon(): Promise<ClaimedRun[]> {
    return this.#queue.drain();
  }

  async close(): Promise<void> {}

  #forget(id: string): void {
    this.#directory.remove(id);
    this.#keys.forget(id);
  }

  #storedBytes(): number {
    let bytes = 0;
    for (const run of this.#directory.values()) bytes += run.storedBytes;
    return bytes;
  }

  /** Forgets finished runs, the longest finished first, until `bytes` more fit in the stored-bytes budget. */
  #makeRoom(bytes: number): void {
    let excess = this.#storedBytes() + bytes - this.#limits.maxStoredBytes;
    if (excess <= 0) return;
    const finished = [...this.#directory.values()]
      .filter((run) => run.finished)
      .sort((a, b) => (a.finishedAt ?? 0) - (b.finishedAt ?? 0));
    for (const run of finished) {
      if (excess <= 0) break;
      excess -= run.storedBytes;
      this.#forget(run.id);
    }
  }
}
