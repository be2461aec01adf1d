import { describe, expect, it } from 'vitest';
import { trackSourceTimers } from '../../support/track-source-timers.js';
import { completed, play, type StoreHarness, started } from './store-harness.js';

/** What concerns the instances: `stats`, `localCounts`, `onClaimable`, `abandon` and `close` (docs/protocol.md §8). */
export function instanceContract(h: StoreHarness): void {
  describe('counts', () => {
    it('the running, queued and finished runs, on every instance together (stats)', async () => {
      const here = await h.open({ maxRunningPerKey: 5 });
      await h.finished(here, 'alpha');
      await h.start(here, 'alpha');
      await h.queue(here, 'alpha');
      expect(await here.store.stats()).toEqual({ running: 1, queued: 1, finished: 1 });
      if (h.kind.shared) expect(await (await h.open()).store.stats()).toEqual({ running: 1, queued: 1, finished: 1 });
    });

    it("what this instance alone executes (localCounts); the queue and finished runs too, when they are this process's alone", async () => {
      const here = await h.open({ maxRunningPerKey: 5 });
      await h.finished(here, 'alpha');
      const running = await h.start(here, 'alpha');
      await h.queue(here, 'alpha');
      const alone = h.kind.shared ? 0 : 1;
      expect(here.store.localCounts()).toEqual({ running: 1, queued: alone, finished: alone });
      play(running.log, started(running.record), completed());
      await running.tracked;
      expect(here.store.localCounts()).toMatchObject({ running: 0 });
    });
  });

  describe('says when queued runs may have become claimable (onClaimable)', () => {
    // A queue of one process changes only by its own hand: there is nothing to be told.
    it.runIf(h.kind.shared)('to an instance that did not queue them, within the queue poll', async () => {
      const here = await h.open();
      const other = await h.open();
      await h.queue(other, 'alpha');
      await expect.poll(() => here.claimable, { timeout: 10_000 }).toBeGreaterThan(0);
    });
  });

  describe('at shutdown (abandon)', () => {
    it('hands back the queued runs no other instance will run, taken out of the queue, or leaves them for the others', async () => {
      const here = await h.open({ maxQueuedPerKey: 5 });
      const queued = [
        await h.queue(here, 'alpha', { secrets: { token: 't1' } }),
        await h.queue(here, 'beta', { secrets: { token: 't2' } }),
      ];
      const abandoned = await here.store.abandon();
      if (h.kind.shared) {
        expect(abandoned).toEqual([]);
        const other = await h.open();
        const claimed = await other.store.claim(5);
        expect(claimed.map((run) => [run.record, run.secrets])).toEqual([
          [queued[0], { token: 't1' }],
          [queued[1], { token: 't2' }],
        ]);
      } else {
        expect(abandoned.map((run) => [run.record, run.secrets])).toEqual([
          [queued[0], { token: 't1' }],
          [queued[1], { token: 't2' }],
        ]);
        expect(await here.store.stats()).toMatchObject({ queued: 0 });
        expect(await here.store.claim(5)).toEqual([]);
      }
    });
  });

  describe('closes', () => {
    it('leaving no timer of its own armed, and the runs it holds where they are', async () => {
      const timers = trackSourceTimers();
      try {
        const here = await h.open();
        const run = await h.start(here, 'alpha');
        play(run.log, started(run.record), completed());
        await run.tracked;
        const queued = await h.queue(here, 'alpha');
        await h.close(here);
        // A retry in flight as it closed may fire a moment later; a timer it left behind never settles.
        await expect.poll(() => timers.pending(), { timeout: 10_000 }).toEqual([]);
        if (h.kind.shared) {
          const other = await h.open();
          expect((await other.store.snapshot(run.record.id))?.snapshot.status).toBe('completed');
          expect((await other.store.snapshot(queued.id))?.snapshot.status).toBe('queued');
        }
      } finally {
        timers.restore();
      }
    });
  });
}
