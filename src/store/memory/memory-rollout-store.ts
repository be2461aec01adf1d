import type { RolloutBatchRecord } from '../../rollouts/rollout-batch-record.js';
import type {
  BatchCreation,
  BatchPage,
  NamedBatch,
  PairState,
  RolloutBatchStore,
  Settlement,
  SettleOutcome,
  StoreBudget,
  StoredBatch,
  StoredByteLimits,
} from '../../rollouts/rollout-batch-store.js';
import { invalidListCursor } from '../../runs/run-store.js';
import { StoredBytes } from './stored-bytes.js';

interface MemoryBatch {
  record: RolloutBatchRecord;
  cancelledAt: number | null;
  finishedAt: number | null;
  pairs: PairState[];
  records: string[];
  outcomes: string[];
  /** The idempotency key (`owner\0key`) bound to it, if any. */
  key: string | undefined;
  /** Characters of JSON it holds (its record, its records and their outcomes), counted in the stored bytes. */
  bytes: number;
  stopped: StoreBudget | undefined;
  /** Woken whenever a record is added or the batch ends. */
  waiters: Set<() => void>;
}

export interface MemoryRolloutStoreOptions {
  /** The stored bytes the records count in: the memory run store's, so runs and records share one budget. */
  stored?: StoredBytes;
  /** Those budgets; none when not given. */
  limits?: StoredByteLimits;
}

/**
 * The rollout batches of one process, beside the memory run store. Every method runs to its end
 * without awaiting, so settling a pair is as atomic here as the Redis script makes it there.
 */
export class MemoryRolloutStore implements RolloutBatchStore {
  readonly #stored: StoredBytes;
  readonly #limits: StoredByteLimits;
  readonly #batches = new Map<string, MemoryBatch>();
  /** Idempotency keys (`owner\0key`) → the body hash and batch they name. */
  readonly #keys = new Map<string, { hash: string; id: string }>();

  constructor(options: MemoryRolloutStoreOptions = {}) {
    this.#stored = options.stored ?? new StoredBytes();
    this.#limits = options.limits ?? {
      maxStoredBytes: Number.POSITIVE_INFINITY,
      maxStoredBytesPerKey: Number.POSITIVE_INFINITY,
    };
  }

  async create(
    batch: RolloutBatchRecord,
    runs: readonly string[],
    idempotency?: { key: string; hash: string },
  ): Promise<BatchCreation> {
    const key = idempotency === undefined ? undefined : `${batch.owner}\0${idempotency.key}`;
    if (key !== undefined) {
      const named = await this.named(batch.owner, idempotency!);
      if (named !== undefined) return named;
    }
    const bytes = JSON.stringify(batch).length;
    const budget = this.#makeRoom(batch.owner, bytes, batch.id);
    if (budget !== undefined) return { kind: 'full', budget };
    this.#stored.add(batch.owner, bytes);
    if (key !== undefined) this.#keys.set(key, { hash: idempotency!.hash, id: batch.id });
    this.#batches.set(batch.id, {
      record: batch,
      cancelledAt: null,
      finishedAt: null,
      pairs: runs.map((run) => ({ run, attempt: 1, state: 'open' })),
      records: [],
      outcomes: [],
      key,
      bytes,
      stopped: undefined,
      waiters: new Set(),
    });
    return { kind: 'created' };
  }

  async named(owner: string, idempotency: { key: string; hash: string }): Promise<NamedBatch | undefined> {
    const bound = this.#keys.get(`${owner}\0${idempotency.key}`);
    if (bound === undefined || !this.#batches.has(bound.id)) return undefined;
    return bound.hash === idempotency.hash ? { kind: 'existing', id: bound.id } : { kind: 'conflict' };
  }

  async get(id: string): Promise<StoredBatch | undefined> {
    const batch = this.#batches.get(id);
    return batch && storedOf(batch);
  }

  async pairs(id: string): Promise<PairState[]> {
    return (this.#batches.get(id)?.pairs ?? []).map((pair) => ({ ...pair }));
  }

  async outcomes(id: string): Promise<string[]> {
    return [...(this.#batches.get(id)?.outcomes ?? [])];
  }

  async settle(
    id: string,
    pair: number,
    run: string,
    attempt: number,
    settlement: Settlement,
    now: number,
  ): Promise<SettleOutcome> {
    const batch = this.#batches.get(id);
    const state = batch?.pairs[pair];
    if (!batch || !state || state.run !== run || state.attempt !== attempt || state.state !== 'open') return 'stale';
    if (batch.cancelledAt !== null) {
      state.state = 'done';
      return 'cancelled';
    }
    if (settlement.kind !== 'record') {
      const next = settlement.kind === 'retry' ? attempt + 1 : attempt;
      batch.pairs[pair] = { run: settlement.next, attempt: next, state: 'open' };
      return 'retry';
    }
    state.state = 'done';
    const owner = batch.record.owner;
    const bytes = settlement.record.length + settlement.outcome.length;
    const full = this.#makeRoom(owner, bytes, id);
    if (full !== undefined) {
      batch.stopped = full;
      batch.cancelledAt = now;
      batch.finishedAt = now;
      wake(batch);
      return 'refused';
    }
    this.#stored.add(owner, bytes);
    batch.bytes += bytes;
    batch.records.push(settlement.record);
    batch.outcomes.push(settlement.outcome);
    if (batch.records.length === batch.pairs.length) batch.finishedAt = now;
    wake(batch);
    return 'recorded';
  }

  /**
   * Forgets `owner`'s own ended batches but `keep`, oldest first, until `bytes` more fit in its share and
   * the total; answers the budget still full, if any (the order and words of the runs' `makeRoom`).
   */
  #makeRoom(owner: string, bytes: number, keep: string): StoreBudget | undefined {
    const full = (): StoreBudget | undefined => {
      if (this.#stored.held(owner) + bytes > this.#limits.maxStoredBytesPerKey) return 'key_store_full';
      return this.#stored.held() + bytes > this.#limits.maxStoredBytes ? 'store_full' : undefined;
    };
    for (const batch of [...this.#batches.values()]) {
      if (full() === undefined) break;
      if (batch.record.owner === owner && batch.record.id !== keep && batch.finishedAt !== null) {
        this.#forget(batch);
      }
    }
    return full();
  }

  async cancel(id: string, now: number): Promise<void> {
    const batch = this.#batches.get(id);
    if (!batch || batch.finishedAt !== null) return;
    batch.cancelledAt = now;
    batch.finishedAt = now;
    wake(batch);
  }

  async records(id: string, after: number, max: number): Promise<string[]> {
    return (this.#batches.get(id)?.records ?? []).slice(after + 1, after + 1 + max);
  }

  changed(id: string, ms: number, signal: AbortSignal): Promise<void> {
    const batch = this.#batches.get(id);
    if (!batch || signal.aborted) return Promise.resolve();
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        batch.waiters.delete(done);
        signal.removeEventListener('abort', done);
        resolve();
      };
      const timer = setTimeout(done, ms);
      batch.waiters.add(done);
      signal.addEventListener('abort', done, { once: true });
    });
  }

  async list(owner: string, query: { limit: number; after?: string }): Promise<BatchPage> {
    const mine = [...this.#batches.values()].filter((batch) => batch.record.owner === owner).reverse();
    let start = 0;
    if (query.after !== undefined) {
      start = mine.findIndex((batch) => batch.record.id === query.after) + 1;
      if (start === 0) throw invalidListCursor(query.after);
    }
    const page = mine.slice(start, start + query.limit);
    const more = start + query.limit < mine.length;
    return { data: page.map(storedOf), next: more ? page.at(-1)!.record.id : null };
  }

  async unfinished(): Promise<string[]> {
    return [...this.#batches.values()].filter((batch) => batch.finishedAt === null).map((batch) => batch.record.id);
  }

  async forget(id: string): Promise<void> {
    const batch = this.#batches.get(id);
    if (batch) this.#forget(batch);
  }

  #forget(batch: MemoryBatch): void {
    const id = batch.record.id;
    this.#batches.delete(id);
    this.#stored.add(batch.record.owner, -batch.bytes);
    if (batch.key !== undefined && this.#keys.get(batch.key)?.id === id) this.#keys.delete(batch.key);
    wake(batch);
  }

  async sweep(endedBy: number): Promise<void> {
    for (const batch of [...this.#batches.values()]) {
      if (batch.finishedAt !== null && batch.finishedAt <= endedBy) await this.forget(batch.record.id);
    }
  }
}

function storedOf(batch: MemoryBatch): StoredBatch {
  return {
    record: batch.record,
    cancelledAt: batch.cancelledAt,
    finishedAt: batch.finishedAt,
    records: batch.records.length,
    ...(batch.stopped === undefined ? {} : { stopped: batch.stopped }),
  };
}

function wake(batch: MemoryBatch): void {
  for (const waiter of [...batch.waiters]) waiter();
}
