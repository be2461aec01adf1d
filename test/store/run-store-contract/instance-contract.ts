import { describe, expect, it } from 'vitest';
import type { ControlMessage } from '../../../src/runs/control-message.js';
import { trackSourceTimers } from '../../support/track-source-timers.js';
import { completed, play, type StoreHarness, started } from './store-harness.js';

const CANCEL: ControlMessage = { type: 'cancel', reason: 'client' };
const MESSAGE: ControlMessage = { type: 'message', message_id: 'msg_1', content: 'Go on.' };

/** What concerns the instances: `control`, `stats`, `localStats`, `abandon` and `close` (docs/protocol.md §7, §8). */
export function instanceContract(h: StoreHarness): void {
  describe('delivers a control message', () => {
    it('to the executor of this instance, for a run it executes', async () => {
      const here = await h.open();
      const run = await h.start(here, 'alpha');
      play(run.log, started(run.record));
      await here.store.control(run.record.id, CANCEL);
      expect(here.executor.controls).toEqual([{ runId: run.record.id, message: CANCEL }]);
    });

    // A store of one process has one instance: the test above says it all.
    it.runIf(h.kind.shared)('to the instance that executes the run, whichever instance it is sent from', async () => {
      const sender = await h.open();
      const executing = await h.open();
      const run = await h.start(executing, 'alpha');
      play(run.log, started(run.record));
      await sender.store.control(run.record.id, CANCEL);
      await sender.store.control(run.record.id, MESSAGE);
      await expect.poll(() => executing.executor.controls, { timeout: 10_000 }).toHaveLength(2);
      expect(executing.executor.controls).toEqual([
        { runId: run.record.id, message: CANCEL },
        { runId: run.record.id, message: MESSAGE },
      ]);
      expect(sender.executor.controls).toEqual([]);
    });
  });

  describe('counts', () => {
    it('the running, queued and finished runs (stats), and the subscribers on this instance', async () => {
      const here = await h.open({ maxRunningPerKey: 5 });
      await h.finished(here, 'alpha');
      const running = await h.start(here, 'alpha');
      await h.queue(here, 'alpha');
      await here.store.open(running.record.id);
      const leave = here.store.watch(running.record.id);
      expect(await here.store.stats()).toEqual({ running: 1, queued: 1, finished: 1, subscribers: 1 });
      leave();
      expect((await here.store.stats()).subscribers).toBe(0);
    });

    it("what this instance alone executes and who watches here (localStats); the queue too, when it is this process's alone", async () => {
      const here = await h.open({ maxRunningPerKey: 5 });
      const running = await h.start(here, 'alpha');
      await h.queue(here, 'alpha');
      await here.store.open(running.record.id);
      const leave = here.store.watch(running.record.id);
      expect(here.store.localStats()).toMatchObject({
        running: 1,
        queued: h.kind.shared ? 0 : 1,
        subscribers: 1,
      });
      leave();
      play(running.log, started(running.record), completed());
      await running.tracked;
      expect(here.store.localStats()).toMatchObject({ running: 0, subscribers: 0 });
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
