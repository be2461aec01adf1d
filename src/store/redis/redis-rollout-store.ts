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
import type { RedisConnection } from './redis-connection.js';
import type { RedisKeys } from './redis-keys.js';

export interface RedisRolloutStoreOptions {
  connection: RedisConnection;
  keys: RedisKeys;
  /** How long an ended batch's keys live: its retention and a margin, as a run's (the sweep forgets it first). */
  expireMs: number;
  /** The runs' byte budgets, which the records count against too; none when not given. */
  limits?: StoredByteLimits;
}

/**
 * How often a reader waiting for a batch's next record looks again. Records are settled by whichever
 * instance ended a pair, so a reader polls rather than follows: one `LLEN`-sized read per reader per
 * period, against one `XREAD` connection shared with the runs' logs that this would otherwise crowd.
 */
const POLL_MS = 100;

/** Batches forgotten per sweep at most. */
const SWEEP_MOST = 1000;

/**
 * The rollout batches in the runs' Redis (keys `ro:*` of the key layout): a batch's record and pairs
 * in hashes, its records and their outcomes in lists, settled by one script (`rbRolloutSettle`).
 */
export class RedisRolloutStore implements RolloutBatchStore {
  readonly #o: RedisRolloutStoreOptions;

  constructor(options: RedisRolloutStoreOptions) {
    this.#o = options;
  }

  async create(
    batch: RolloutBatchRecord,
    runs: readonly string[],
    idempotency?: { key: string; hash: string },
  ): Promise<BatchCreation> {
    const { connection, keys } = this.#o;
    const reply = (await connection.script(
      'rbRolloutCreate',
      keys.prefix,
      {
        id: batch.id,
        owner: batch.owner,
        record: JSON.stringify(batch),
        total: runs.length,
        createdAt: batch.created_at,
        idemKey: idempotency === undefined ? '' : keys.rolloutIdempotency(batch.owner, idempotency.key),
        idemHash: idempotency?.hash ?? '',
        ...this.#budgets(),
      },
      runs,
    )) as string[];
    if (reply[0] === 'existing') return { kind: 'existing', id: reply[1]! };
    if (reply[0] === 'full') return { kind: 'full', budget: reply[1] as StoreBudget };
    return reply[0] === 'conflict' ? { kind: 'conflict' } : { kind: 'created' };
  }

  async named(owner: string, idempotency: { key: string; hash: string }): Promise<NamedBatch | undefined> {
    const { connection, keys } = this.#o;
    const value = await connection.run(() => connection.command.get(keys.rolloutIdempotency(owner, idempotency.key)));
    // `<hash>:<batch id>`, as the create script binds it.
    const match = value === null ? null : /^([0-9a-f]+):(.*)$/.exec(value);
    if (match === null) return undefined;
    const id = match[2]!;
    if ((await connection.run(() => connection.command.exists(keys.rollout(id)))) === 0) return undefined;
    return match[1] === idempotency.hash ? { kind: 'existing', id } : { kind: 'conflict' };
  }

  async get(id: string): Promise<StoredBatch | undefined> {
    const { connection, keys } = this.#o;
    const [record, cancelledAt, finishedAt, recorded, stopped] = await connection.run(() =>
      connection.command.hmget(keys.rollout(id), 'record', 'cancelled_at', 'finished_at', 'recorded', 'stopped'),
    );
    if (!record) return undefined;
    return {
      record: JSON.parse(record) as RolloutBatchRecord,
      cancelledAt: cancelledAt ? Number(cancelledAt) : null,
      finishedAt: finishedAt ? Number(finishedAt) : null,
      records: Number(recorded ?? 0),
      ...(stopped ? { stopped: stopped as StoreBudget } : {}),
    };
  }

  async pairs(id: string): Promise<PairState[]> {
    const { connection, keys } = this.#o;
    const all = await connection.run(() => connection.command.hgetall(keys.rolloutPairs(id)));
    const pairs: PairState[] = [];
    for (const [pair, value] of Object.entries(all)) {
      const [run, attempt, state] = value.split(':') as [string, string, PairState['state']];
      pairs[Number(pair)] = { run, attempt: Number(attempt), state };
    }
    return pairs;
  }

  async outcomes(id: string): Promise<string[]> {
    const { connection, keys } = this.#o;
    return connection.run(() => connection.command.lrange(keys.rolloutOutcomes(id), 0, -1));
  }

  async settle(
    id: string,
    pair: number,
    run: string,
    attempt: number,
    settlement: Settlement,
    now: number,
  ): Promise<SettleOutcome> {
    const { connection, keys, expireMs } = this.#o;
    return (await connection.script('rbRolloutSettle', keys.prefix, {
      id,
      pair,
      run,
      attempt,
      kind: settlement.kind,
      record: settlement.kind === 'record' ? settlement.record : '',
      outcome: settlement.kind === 'record' ? settlement.outcome : '',
      next: settlement.kind === 'record' ? '' : settlement.next,
      now,
      expireMs,
      ...this.#budgets(),
    })) as SettleOutcome;
  }

  /** The byte budgets as script arguments. */
  #budgets(): { maxStoredBytes: number; maxStoredBytesPerKey: number } {
    // Redis takes no Infinity: the largest number a Lua double holds exactly stands for "no bound".
    return {
      maxStoredBytes: Math.min(this.#o.limits?.maxStoredBytes ?? Number.MAX_SAFE_INTEGER, Number.MAX_SAFE_INTEGER),
      maxStoredBytesPerKey: Math.min(
        this.#o.limits?.maxStoredBytesPerKey ?? Number.MAX_SAFE_INTEGER,
        Number.MAX_SAFE_INTEGER,
      ),
    };
  }

  async cancel(id: string, now: number): Promise<void> {
    const { connection, keys, expireMs } = this.#o;
    await connection.script('rbRolloutCancel', keys.prefix, { id, now, expireMs });
  }

  async records(id: string, after: number, max: number): Promise<string[]> {
    const { connection, keys } = this.#o;
    return connection.run(() => connection.command.lrange(keys.rolloutRecords(id), after + 1, after + max));
  }

  changed(_id: string, ms: number, signal: AbortSignal): Promise<void> {
    if (signal.aborted) return Promise.resolve();
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        signal.removeEventListener('abort', done);
        resolve();
      };
      const timer = setTimeout(done, Math.min(ms, POLL_MS));
      signal.addEventListener('abort', done, { once: true });
    });
  }

  async list(owner: string, query: { limit: number; after?: string }): Promise<BatchPage> {
    const { connection, keys } = this.#o;
    const index = keys.ownerRollouts(owner);
    let start = 0;
    if (query.after !== undefined) {
      const rank = await connection.run(() => connection.command.zrevrank(index, query.after!));
      if (rank === null) throw invalidListCursor(query.after);
      start = rank + 1;
    }
    const data: StoredBatch[] = [];
    for (;;) {
      const ids = await connection.run(() => connection.command.zrevrange(index, start, start + query.limit));
      if (ids.length === 0) return { data, next: null };
      for (const id of ids) {
        const stored = await this.get(id);
        // Expired meanwhile (its retention passed): no longer listed.
        if (stored === undefined) {
          await connection.run(() => connection.command.zrem(index, id));
          continue;
        }
        if (data.length === query.limit) return { data, next: data.at(-1)!.record.id };
        data.push(stored);
      }
      start += ids.length;
    }
  }

  async unfinished(): Promise<string[]> {
    const { connection, keys } = this.#o;
    return connection.run(() => connection.command.smembers(keys.fixed('rolloutsOpen')));
  }

  async forget(id: string): Promise<void> {
    const { connection, keys } = this.#o;
    await connection.script('rbRolloutForget', keys.prefix, { id });
  }

  async sweep(endedBy: number): Promise<void> {
    const { connection, keys } = this.#o;
    await connection.script('rbRolloutSweep', keys.prefix, { endedBy, most: SWEEP_MOST });
  }
}
