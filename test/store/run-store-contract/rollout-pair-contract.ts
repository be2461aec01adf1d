import { describe, expect, it } from 'vitest';
import type { RolloutPairRef } from '../../../src/runs/run-record.js';
import { completed, LIMITS, play, type StoreHarness, started } from './store-harness.js';

const PAIR: RolloutPairRef = {
  rollout_id: 'ro_contract',
  pair: 0,
  task_index: 0,
  sample_index: 0,
  seed: 7,
  attempt: 1,
  timeout_ms: 60_000,
};

/** What the rollout service needs of the runs' store (docs/rollouts.md, "The service"). */
export function rolloutPairContract(h: StoreHarness): void {
  describe('keeps the runs of rollout pairs', () => {
    it("as runs, with their pair in the record, but out of the owner's list", async () => {
      const here = await h.open();
      const listed = await h.queue(here, 'alpha');
      const pair = h.newRun('alpha', { startHere: false, rollout: PAIR });
      expect(await here.store.submit(pair)).toEqual({ kind: 'queued' });
      expect((await here.streams.join(pair.record.id))?.record.rollout).toEqual(PAIR);
      expect((await here.store.list('alpha', { limit: 10 })).data.map((run) => run.run_id)).toEqual([listed.id]);
      expect(await here.store.stats()).toMatchObject({ queued: 2 });
    });

    it('never naming them as orphans, running or queued: their batch keeps them, not a watcher', async () => {
      const here = await h.open();
      const running = await h.start(here, 'alpha', { rollout: PAIR });
      play(running.log, started(running.record));
      await h.queue(here, 'alpha', { rollout: { ...PAIR, pair: 1 } });
      const orphan = await h.queue(here, 'beta');
      h.advance(3 * LIMITS.orphanTtlMs);
      expect(await here.store.sweep()).toEqual({ orphans: [orphan.id] });
    });

    it('telling, when a run ends, that the store holds the log written here', async () => {
      const here = await h.open();
      const { record, log, tracked } = await h.start(here, 'alpha', { rollout: PAIR });
      play(log, started(record), completed());
      expect(await tracked).toBe(true);
    });
  });

  describe('tells how many more runs of a key the queue takes', () => {
    it("as the least of the queue's room and the key's share of it", async () => {
      const here = await h.open({ maxQueuedRuns: 5, maxQueuedPerKey: 3 });
      expect(await here.store.queueRoom('alpha')).toBe(3);
      await h.queue(here, 'alpha');
      await h.queue(here, 'beta');
      await h.queue(here, 'beta');
      expect(await here.store.queueRoom('alpha')).toBe(2);
      expect(await here.store.queueRoom('beta')).toBe(1);
      await h.queue(here, 'gamma');
      expect(await here.store.queueRoom('alpha')).toBe(1);
      await h.queue(here, 'gamma');
      expect(await here.store.queueRoom('alpha')).toBe(0);
    });
  });
}
