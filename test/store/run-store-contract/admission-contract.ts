import { describe, expect, it } from 'vitest';
import { EventLogFullError } from '../../../src/runs/event-log.js';
import { recordBytes } from '../../../src/runs/run-record.js';
import { keyQueueFull, queueBytesFull, queueFull, storeFull } from '../../../src/store/refusals.js';
import { completed, play, type StoreHarness, started } from './store-harness.js';

/** `submit`, `claim` and `unqueue` (docs/protocol.md §6): who starts, who waits, who is refused, and in what words. */
export function admissionContract(h: StoreHarness): void {
  describe('admits a run', () => {
    it('starting it at once when this instance has a slot and its key may run another, with an empty log to play it into', async () => {
      const here = await h.open();
      const { record, log } = await h.start(here, 'alpha');
      expect(log.length).toBe(0);
      expect(log.runId).toBe(record.id);
      expect((await here.store.snapshot(record.id))?.snapshot).toMatchObject({ run_id: record.id, last_seq: -1 });
      expect(await here.store.stats()).toMatchObject({ running: 1, queued: 0 });
    });

    it('queuing it when this instance has no slot free', async () => {
      const here = await h.open();
      const record = await h.queue(here, 'alpha');
      expect(await here.store.snapshot(record.id)).toEqual({
        owner: 'alpha',
        snapshot: expect.objectContaining({ run_id: record.id, status: 'queued', last_seq: -1 }),
      });
      expect(await here.store.stats()).toMatchObject({ running: 0, queued: 1 });
    });

    it("queuing it, even with a slot free, while its key runs as many as its quota; another key's run starts", async () => {
      const here = await h.open({ maxRunningPerKey: 1 });
      await h.start(here, 'alpha');
      expect(await here.store.submit(h.newRun('alpha', { startHere: true }))).toEqual({ kind: 'queued' });
      expect(await here.store.submit(h.newRun('beta', { startHere: true }))).toMatchObject({ kind: 'started' });
    });

    it('bounding the log it hands out at maxEventsPerRun progress events, and taking the terminal event past it', async () => {
      const here = await h.open({ maxEventsPerRun: 3 });
      const { record, log, tracked } = await h.start(here, 'alpha');
      play(
        log,
        started(record),
        { event: 'message.delta', delta: 'a', turn: 1 },
        { event: 'message.delta', delta: 'b', turn: 1 },
      );
      expect(() => log.append({ event: 'message.delta', delta: 'c', turn: 1 })).toThrow(EventLogFullError);
      play(log, completed());
      await tracked;
      expect((await here.streams.join(record.id))?.log.length).toBe(4);
    });
  });

  describe('refuses a run that may not wait, storing nothing, in the words of src/store/refusals.ts', () => {
    it('with queue_full once the queue holds maxQueuedRuns', async () => {
      const here = await h.open({ maxQueuedRuns: 2, maxQueuedPerKey: 10 });
      await h.queue(here, 'alpha');
      await h.queue(here, 'beta');
      const refused = h.newRun('gamma', { startHere: false });
      expect(await here.store.submit(refused)).toEqual(queueFull(2));
      expect(await here.store.snapshot(refused.record.id)).toBeUndefined();
      expect((await here.store.list('gamma', { limit: 10 })).data).toEqual([]);
      expect(await here.store.stats()).toMatchObject({ queued: 2 });
    });

    it("with key_queue_full once the key holds its share of the queue; another key's run still waits", async () => {
      const here = await h.open({ maxQueuedPerKey: 2 });
      await h.queue(here, 'alpha');
      await h.queue(here, 'alpha');
      const refused = h.newRun('alpha', { startHere: false });
      expect(await here.store.submit(refused)).toEqual(keyQueueFull(2));
      expect(await here.store.snapshot(refused.record.id)).toBeUndefined();
      await h.queue(here, 'beta');
    });

    it('with queue_full once the queued requests would pass maxQueuedBytes; a smaller request still fits', async () => {
      const big = { request: { input: 'x'.repeat(4000) } };
      const bytes = h.newRun('alpha', big).requestBytes;
      const limit = 2 * bytes + 500;
      const here = await h.open({ maxQueuedBytes: limit, maxQueuedPerKey: 10 });
      await h.queue(here, 'alpha', big);
      await h.queue(here, 'alpha', big);
      const refused = h.newRun('alpha', { ...big, startHere: false });
      expect(await here.store.submit(refused)).toEqual(queueBytesFull(2 * bytes, bytes, limit));
      expect(await here.store.snapshot(refused.record.id)).toBeUndefined();
      await h.queue(here, 'alpha', { request: { input: 'small' } });
    });

    it('with store_full while running runs hold the whole stored-bytes budget', async () => {
      const big = { request: { input: 'z'.repeat(6000) } };
      const one = recordBytes(h.newRun('alpha', big).record);
      const here = await h.open({ maxStoredBytes: one + 1000, maxRunningPerKey: 5 });
      await h.start(here, 'alpha', big);
      const refused = h.newRun('alpha', { ...big, startHere: true });
      expect(await here.store.submit(refused)).toEqual(storeFull(one, one + 1000));
      expect(await here.store.snapshot(refused.record.id)).toBeUndefined();
    });

    it('with store_full before queue_full when both bounds are reached', async () => {
      const big = { request: { input: 'z'.repeat(6000) } };
      const one = recordBytes(h.newRun('alpha', big).record);
      const here = await h.open({ maxStoredBytes: one + 1000, maxQueuedRuns: 1 });
      await h.queue(here, 'alpha', big);
      expect(await here.store.submit(h.newRun('beta', { ...big, startHere: false }))).toEqual(
        storeFull(one, one + 1000),
      );
    });
  });

  describe('hands out queued runs', () => {
    it('oldest first, at most max at a time', async () => {
      const here = await h.open({ maxQueuedPerKey: 10 });
      const queued = [await h.queue(here, 'alpha'), await h.queue(here, 'beta'), await h.queue(here, 'gamma')];
      const first = await here.store.claim(2);
      expect(first.map((run) => run.record)).toEqual(queued.slice(0, 2));
      expect(await here.store.stats()).toMatchObject({ running: 2, queued: 1 });
      expect((await here.store.claim(5)).map((run) => run.record)).toEqual(queued.slice(2));
      expect(await here.store.claim(5)).toEqual([]);
    });

    it('with an empty log to play it into, and the secrets it was submitted with, which no record, snapshot or list shows', async () => {
      const here = await h.open();
      const secret = 'sk-live-never-shown';
      const record = await h.queue(here, 'alpha', { secrets: { token: secret } });
      const [claimed] = await here.store.claim(1);
      expect(claimed?.secrets).toEqual({ token: secret });
      expect(claimed?.log.length).toBe(0);
      expect(claimed?.log.runId).toBe(record.id);
      const shown = JSON.stringify([
        claimed?.record,
        await here.store.snapshot(record.id),
        await here.store.list('alpha', { limit: 10 }),
      ]);
      expect(shown).not.toContain(secret);
    });

    it('skipping keys at their running quota, whose runs are claimed once a run of theirs has ended', async () => {
      const here = await h.open({ maxRunningPerKey: 1 });
      const running = await h.start(here, 'alpha');
      const waiting = await h.queue(here, 'alpha');
      const other = await h.queue(here, 'beta');
      expect((await here.store.claim(2)).map((run) => run.record.id)).toEqual([other.id]);
      expect(await here.store.claim(2)).toEqual([]);
      play(running.log, started(running.record), completed());
      await running.tracked;
      expect((await here.store.claim(2)).map((run) => run.record.id)).toEqual([waiting.id]);
    });
  });

  describe('takes a run out of the queue for a cancel (unqueue)', () => {
    it('handing it out to be ended here, after which it is neither claimed nor queued', async () => {
      const here = await h.open({ maxQueuedRuns: 1 });
      const record = await h.queue(here, 'alpha');
      const taken = await here.store.unqueue(record.id);
      expect(taken?.record).toEqual(record);
      expect(taken?.log.length).toBe(0);
      expect(await here.store.unqueue(record.id)).toBeUndefined();
      expect(await here.store.claim(5)).toEqual([]);
      // Its place in the queue is free again.
      await h.queue(here, 'beta');

      const { tracked } = h.publish(here, taken!);
      play(taken!.log, started(record), { event: 'run.cancelled', reason: 'client' });
      await tracked;
      expect((await here.store.snapshot(record.id))?.snapshot).toMatchObject({ status: 'cancelled', last_seq: 1 });
    });

    it('answering undefined for a run that is running, finished or unknown', async () => {
      const here = await h.open({ maxRunningPerKey: 5 });
      const running = await h.start(here, 'alpha');
      const done = await h.finished(here, 'alpha');
      for (const id of [running.record.id, done.record.id, 'run_unknown']) {
        expect(await here.store.unqueue(id)).toBeUndefined();
      }
    });
  });
}
