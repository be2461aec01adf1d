import { afterEach, describe, expect, it } from 'vitest';
import type { RolloutBatchRecord } from '../../src/rollouts/rollout-batch-record.js';
import type { RolloutBatchStore, StoredByteLimits } from '../../src/rollouts/rollout-batch-store.js';
import { sampleBatch } from '../rollouts/sample-record.js';

/** How a suite opens instances of one rollout store; the instances of one test see the same batches. */
export interface RolloutStoreKind {
  /** An instance; with `limits`, a store whose records count against these byte budgets (and only that one instance). */
  open(limits?: StoredByteLimits): Promise<{ store: RolloutBatchStore; close(): Promise<void> }>;
}

let batches = 0;

/** A batch of `owner` with `pairs` pairs (tasks × 1 sample), created at `at`. */
function batchOf(owner: string, pairs: number, at = 1000): RolloutBatchRecord {
  return sampleBatch({
    id: `ro_${String(++batches).padStart(6, '0')}`,
    owner,
    indices: [...Array(pairs).keys()],
    created_at: at,
  });
}

const runsOf = (batch: RolloutBatchRecord) => batch.indices.map((index) => `run_${batch.id}_${index}`);
const record = (n: number) => ({ kind: 'record' as const, record: `{"n":${n}}`, outcome: `{"o":${n}}` });

/**
 * What every `RolloutBatchStore` does (src/rollouts/rollout-batch-store.ts), driven through the interface
 * alone: both stores give the same answers, and settling a pair is once-only however many settle it.
 */
export function rolloutStoreContract(name: string, setup: () => RolloutStoreKind): void {
  describe(`${name}, as every RolloutBatchStore`, () => {
    const kind = setup();
    const opened: Array<{ close(): Promise<void> }> = [];
    const open = async (limits?: StoredByteLimits) => {
      const instance = await kind.open(limits);
      opened.push(instance);
      return instance.store;
    };
    afterEach(async () => {
      for (const instance of opened.splice(0)) await instance.close();
    });

    it('stores a batch with its pairs open on their first runs, and nothing recorded', async () => {
      const store = await open();
      const batch = batchOf('alpha', 3);
      expect(await store.create(batch, runsOf(batch))).toEqual({ kind: 'created' });
      expect(await store.get(batch.id)).toEqual({ record: batch, cancelledAt: null, finishedAt: null, records: 0 });
      expect(await store.pairs(batch.id)).toEqual(runsOf(batch).map((run) => ({ run, attempt: 1, state: 'open' })));
      expect(await store.unfinished()).toContain(batch.id);
      expect(await store.get('ro_unknown')).toBeUndefined();
    });

    it("answers the batch an owner's idempotency key names for the same hash, a conflict for another, and another owner's key apart", async () => {
      const store = await open();
      const first = batchOf('alpha', 1);
      expect(await store.create(first, runsOf(first), { key: 'k', hash: 'aa' })).toEqual({ kind: 'created' });
      const again = batchOf('alpha', 1);
      expect(await store.create(again, runsOf(again), { key: 'k', hash: 'aa' })).toEqual({
        kind: 'existing',
        id: first.id,
      });
      expect(await store.create(again, runsOf(again), { key: 'k', hash: 'bb' })).toEqual({ kind: 'conflict' });
      expect(await store.get(again.id)).toBeUndefined();
      const other = batchOf('beta', 1);
      expect(await store.create(other, runsOf(other), { key: 'k', hash: 'bb' })).toEqual({ kind: 'created' });
      // A forgotten batch frees its key.
      await store.forget(first.id);
      expect(await store.create(again, runsOf(again), { key: 'k', hash: 'bb' })).toEqual({ kind: 'created' });
    });

    it('tells what an idempotency key names without binding it, as create would answer', async () => {
      const store = await open();
      const batch = batchOf('alpha', 1);
      expect(await store.named('alpha', { key: 'k', hash: 'aa' })).toBeUndefined();
      await store.create(batch, runsOf(batch), { key: 'k', hash: 'aa' });
      expect(await store.named('alpha', { key: 'k', hash: 'aa' })).toEqual({ kind: 'existing', id: batch.id });
      expect(await store.named('alpha', { key: 'k', hash: 'bb' })).toEqual({ kind: 'conflict' });
      expect(await store.named('beta', { key: 'k', hash: 'aa' })).toBeUndefined();
      await store.forget(batch.id);
      expect(await store.named('alpha', { key: 'k', hash: 'aa' })).toBeUndefined();
    });

    it('records a settled pair once, in settling order, and ends the batch with its last record', async () => {
      const store = await open();
      const batch = batchOf('alpha', 2);
      const [first, second] = runsOf(batch) as [string, string];
      await store.create(batch, runsOf(batch));
      expect(await store.settle(batch.id, 1, second, 1, record(1), 2000)).toBe('recorded');
      expect(await store.settle(batch.id, 1, second, 1, record(1), 2000)).toBe('stale');
      expect(await store.get(batch.id)).toMatchObject({ records: 1, finishedAt: null });
      expect(await store.settle(batch.id, 0, first, 1, record(0), 3000)).toBe('recorded');
      expect(await store.get(batch.id)).toMatchObject({ records: 2, finishedAt: 3000, cancelledAt: null });
      expect(await store.records(batch.id, -1, 10)).toEqual(['{"n":1}', '{"n":0}']);
      expect(await store.records(batch.id, 0, 10)).toEqual(['{"n":0}']);
      expect(await store.records(batch.id, -1, 1)).toEqual(['{"n":1}']);
      expect(await store.outcomes(batch.id)).toEqual(['{"o":1}', '{"o":0}']);
      expect(await store.unfinished()).not.toContain(batch.id);
    });

    it('moves a pair to its next attempt on a retry; the old attempt is stale from then on', async () => {
      const store = await open();
      const batch = batchOf('alpha', 1);
      const [run] = runsOf(batch) as [string];
      await store.create(batch, runsOf(batch));
      expect(await store.settle(batch.id, 0, run, 1, { kind: 'retry', next: 'run_next' }, 2000)).toBe('retry');
      expect(await store.pairs(batch.id)).toEqual([{ run: 'run_next', attempt: 2, state: 'open' }]);
      expect(await store.settle(batch.id, 0, run, 1, record(0), 2000)).toBe('stale');
      expect(await store.settle(batch.id, 0, 'run_next', 2, record(0), 2500)).toBe('recorded');
      expect(await store.pairs(batch.id)).toEqual([{ run: 'run_next', attempt: 2, state: 'done' }]);
    });

    it('replaces the run of an attempt on a replace, keeping the attempt; the replaced run is stale from then on', async () => {
      const store = await open();
      const batch = batchOf('alpha', 1);
      const [run] = runsOf(batch) as [string];
      await store.create(batch, runsOf(batch));
      expect(await store.settle(batch.id, 0, run, 1, { kind: 'replace', next: 'run_instead' }, 2000)).toBe('retry');
      expect(await store.pairs(batch.id)).toEqual([{ run: 'run_instead', attempt: 1, state: 'open' }]);
      expect(await store.settle(batch.id, 0, run, 1, { kind: 'replace', next: 'run_other' }, 2000)).toBe('stale');
      expect(await store.settle(batch.id, 0, run, 1, record(0), 2000)).toBe('stale');
      expect(await store.settle(batch.id, 0, 'run_instead', 1, record(0), 2500)).toBe('recorded');
      expect(await store.records(batch.id, -1, 10)).toEqual(['{"n":0}']);
    });

    it('settles an attempt settled at once from several instances for one of them only', async () => {
      const stores = await Promise.all([open(), open(), open()]);
      const batch = batchOf('alpha', 1);
      const [run] = runsOf(batch) as [string];
      await stores[0]!.create(batch, runsOf(batch));
      const outcomes = await Promise.all(
        stores.flatMap((store, n) => [
          store.settle(batch.id, 0, run, 1, record(n), 2000),
          store.settle(batch.id, 0, run, 1, { kind: 'retry', next: `run_${n}` }, 2000),
        ]),
      );
      expect(outcomes.filter((outcome) => outcome !== 'stale')).toHaveLength(1);
    });

    it('cancels a batch: it ends, takes no more records and drops the pairs settled after; a cancel after the end changes nothing', async () => {
      const store = await open();
      const batch = batchOf('alpha', 2);
      const [first, second] = runsOf(batch) as [string, string];
      await store.create(batch, runsOf(batch));
      await store.settle(batch.id, 0, first, 1, record(0), 2000);
      await store.cancel(batch.id, 3000);
      expect(await store.get(batch.id)).toMatchObject({ cancelledAt: 3000, finishedAt: 3000, records: 1 });
      expect(await store.settle(batch.id, 1, second, 1, record(1), 3500)).toBe('cancelled');
      expect(await store.pairs(batch.id)).toEqual([
        { run: first, attempt: 1, state: 'done' },
        { run: second, attempt: 1, state: 'done' },
      ]);
      expect(await store.records(batch.id, -1, 10)).toEqual(['{"n":0}']);

      const ended = batchOf('alpha', 1);
      await store.create(ended, runsOf(ended));
      await store.settle(ended.id, 0, runsOf(ended)[0]!, 1, record(0), 4000);
      await store.cancel(ended.id, 5000);
      expect(await store.get(ended.id)).toMatchObject({ cancelledAt: null, finishedAt: 4000 });
    });

    it("lists an owner's batches newest first, a page at a time, and refuses a cursor naming none of theirs", async () => {
      const store = await open();
      const made = [batchOf('alpha', 1, 1000), batchOf('alpha', 1, 2000), batchOf('alpha', 1, 3000)];
      for (const batch of made) await store.create(batch, runsOf(batch));
      const theirs = batchOf('beta', 1, 4000);
      await store.create(theirs, runsOf(theirs));
      const first = await store.list('alpha', { limit: 2 });
      expect(first.data.map((stored) => stored.record.id)).toEqual([made[2]!.id, made[1]!.id]);
      expect(first.next).toBe(made[1]!.id);
      const second = await store.list('alpha', { limit: 2, after: first.next! });
      expect(second).toEqual({ data: [expect.objectContaining({ record: made[0] })], next: null });
      await expect(store.list('alpha', { limit: 2, after: theirs.id })).rejects.toMatchObject({
        code: 'invalid_cursor',
      });
    });

    /** A record of about `chars` characters (its outcome adds a few). */
    const sized = (chars: number) => ({ kind: 'record' as const, record: `"${'r'.repeat(chars - 2)}"`, outcome: '{}' });

    it("counts records against the owner's share: past it, its own ended batches are forgotten, oldest first, then the batch is stopped", async () => {
      const store = await open({ maxStoredBytes: 10_000, maxStoredBytesPerKey: 5_000 });
      const [old, older, theirs] = [batchOf('alpha', 1, 1), batchOf('alpha', 1, 2), batchOf('beta', 1, 3)];
      const live = batchOf('alpha', 3, 4);
      for (const batch of [old, older, theirs, live]) await store.create(batch, runsOf(batch));
      expect(await store.settle(old.id, 0, runsOf(old)[0]!, 1, sized(1_500), 10)).toBe('recorded');
      expect(await store.settle(older.id, 0, runsOf(older)[0]!, 1, sized(1_500), 20)).toBe('recorded');
      expect(await store.settle(theirs.id, 0, runsOf(theirs)[0]!, 1, sized(4_000), 30)).toBe('recorded');

      // Over 3,000 held of alpha's 5,000 (records, and the batches' own): a record of 2,500 makes the oldest ended batch go, not beta's.
      const [first, second, third] = runsOf(live) as [string, string, string];
      expect(await store.settle(live.id, 0, first, 1, sized(2_500), 40)).toBe('recorded');
      expect(await store.get(old.id)).toBeUndefined();
      expect(await store.get(older.id)).toBeDefined();
      expect(await store.get(theirs.id)).toBeDefined();

      // Near 5,000 held: one of 3,000 forgets the other ended batch, and still does not fit.
      expect(await store.settle(live.id, 1, second, 1, sized(3_000), 50)).toBe('refused');
      expect(await store.get(older.id)).toBeUndefined();
      expect(await store.get(live.id)).toMatchObject({
        records: 1,
        cancelledAt: 50,
        finishedAt: 50,
        stopped: 'key_store_full',
      });
      expect(await store.pairs(live.id)).toMatchObject([{ state: 'done' }, { state: 'done' }, { state: 'open' }]);
      expect(await store.settle(live.id, 2, third, 1, sized(10), 60)).toBe('cancelled');
      expect(await store.get(theirs.id)).toMatchObject({ records: 1 });
    });

    it("counts a batch's own record too: one that does not fit, once the owner's ended batches are forgotten, is refused", async () => {
      const store = await open({ maxStoredBytes: 100_000, maxStoredBytesPerKey: 5_000 });
      const big = (at: number) => sampleBatch({ ...batchOf('alpha', 1, at), instructions: 'i'.repeat(2_000) });
      const [ended, live] = [big(1), big(2)];
      for (const batch of [ended, live]) expect(await store.create(batch, runsOf(batch))).toEqual({ kind: 'created' });
      await store.cancel(ended.id, 10);
      // Over 4,000 held of 5,000: a third forgets the ended one and fits; a fourth finds nothing to forget.
      const third = big(3);
      expect(await store.create(third, runsOf(third), { key: 'k3', hash: 'aa' })).toEqual({ kind: 'created' });
      expect(await store.get(ended.id)).toBeUndefined();
      const fourth = big(4);
      expect(await store.create(fourth, runsOf(fourth), { key: 'k4', hash: 'aa' })).toEqual({
        kind: 'full',
        budget: 'key_store_full',
      });
      expect(await store.get(fourth.id)).toBeUndefined();
      expect(await store.named('alpha', { key: 'k4', hash: 'aa' })).toBeUndefined();
      const theirs = batchOf('beta', 1);
      expect(await store.create(theirs, runsOf(theirs))).toEqual({ kind: 'created' });
    });

    it('counts records against the total, and gives back the bytes of a forgotten batch', async () => {
      const store = await open({ maxStoredBytes: 6_000, maxStoredBytesPerKey: 6_000 });
      const [theirs, mine] = [batchOf('beta', 1, 1), batchOf('alpha', 2, 2)];
      for (const batch of [theirs, mine]) await store.create(batch, runsOf(batch));
      const [first, second] = runsOf(mine) as [string, string];
      expect(await store.settle(theirs.id, 0, runsOf(theirs)[0]!, 1, sized(3_000), 10)).toBe('recorded');
      expect(await store.settle(mine.id, 0, first, 1, sized(1_500), 20)).toBe('recorded');
      expect(await store.settle(mine.id, 1, second, 1, sized(1_500), 30)).toBe('refused');
      expect(await store.get(mine.id)).toMatchObject({ records: 1, stopped: 'store_full' });
      expect(await store.get(theirs.id)).toMatchObject({ records: 1 });

      // Beta's batch forgotten, its bytes are free again.
      await store.forget(theirs.id);
      const next = batchOf('alpha', 1, 3);
      await store.create(next, runsOf(next));
      expect(await store.settle(next.id, 0, runsOf(next)[0]!, 1, sized(3_000), 40)).toBe('recorded');
    });

    it('forgets a batch, and sweeps those that ended at or before a time', async () => {
      const store = await open();
      const [early, late, open_] = [batchOf('alpha', 1), batchOf('alpha', 1), batchOf('alpha', 1)];
      for (const batch of [early, late, open_]) await store.create(batch, runsOf(batch));
      await store.cancel(early.id, 1000);
      await store.cancel(late.id, 5000);
      await store.sweep(1000);
      expect(await store.get(early.id)).toBeUndefined();
      expect(await store.get(late.id)).toBeDefined();
      expect(await store.get(open_.id)).toBeDefined();
      await store.forget(late.id);
      expect(await store.get(late.id)).toBeUndefined();
      expect(await store.pairs(late.id)).toEqual([]);
      expect((await store.list('alpha', { limit: 10 })).data.map((stored) => stored.record.id)).toEqual([open_.id]);
    });

    it('tells a reader waiting for changes to look again, within the time it gives', async () => {
      const store = await open();
      const batch = batchOf('alpha', 1);
      await store.create(batch, runsOf(batch));
      const waited = store.changed(batch.id, 50, new AbortController().signal);
      await store.settle(batch.id, 0, runsOf(batch)[0]!, 1, record(0), 2000);
      await waited;
      expect(await store.records(batch.id, -1, 10)).toEqual(['{"n":0}']);
    });
  });
}
