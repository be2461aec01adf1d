import { describe, expect, it } from 'vitest';
import { recordBytes } from '../../../src/runs/run-record.js';
import { keyStoreFull } from '../../../src/store/refusals.js';
import { BODY, completed, LIMITS, play, type StoreHarness, started } from './store-harness.js';

const TTL = LIMITS.orphanTtlMs;
const RETENTION = LIMITS.retentionMs;

/** `touch`, `watch`, `forget` and `sweep` (docs/protocol.md §6): orphans, retention and the stored-bytes budget. */
export function upkeepContract(h: StoreHarness): void {
  describe('names as orphans', () => {
    it('the queued and running runs nobody touched for the orphan TTL, and not a moment before', async () => {
      const here = await h.open();
      const running = await h.start(here, 'alpha');
      play(running.log, started(running.record));
      const queued = await h.queue(here, 'beta');
      h.advance(TTL - 1000);
      expect(await here.store.sweep()).toEqual({ orphans: [] });
      h.advance(1000);
      expect((await here.store.sweep()).orphans.sort()).toEqual([running.record.id, queued.id].sort());
    });

    it('counting the TTL from the last touch', async () => {
      const here = await h.open();
      const running = await h.start(here, 'alpha');
      const queued = await h.queue(here, 'beta');
      h.advance(TTL - 1000);
      await here.store.touch(running.record.id);
      await here.store.touch(queued.id);
      h.advance(TTL - 1000);
      expect(await here.store.sweep()).toEqual({ orphans: [] });
      h.advance(1000);
      expect((await here.store.sweep()).orphans.sort()).toEqual([running.record.id, queued.id].sort());
    });

    it('no run a subscriber that opened it watches, however long; the TTL runs again from when it leaves', async () => {
      const here = await h.open();
      const running = await h.start(here, 'alpha');
      const queued = await h.queue(here, 'beta');
      const leave = [];
      for (const id of [running.record.id, queued.id]) {
        await here.streams.join(id);
        leave.push(here.streams.watch(id));
      }
      h.advance(3 * TTL);
      expect(await here.store.sweep()).toEqual({ orphans: [] });
      for (const left of leave) left();
      h.advance(TTL - 1000);
      expect(await here.store.sweep()).toEqual({ orphans: [] });
      h.advance(1000);
      expect((await here.store.sweep()).orphans.sort()).toEqual([running.record.id, queued.id].sort());
    });

    it.runIf(h.kind.shared)(
      'no run a subscriber on another instance watches, once that instance has swept',
      async () => {
        const executing = await h.open();
        const watching = await h.open();
        const run = await h.start(executing, 'alpha');
        play(run.log, started(run.record));
        await watching.streams.join(run.record.id);
        const leave = watching.streams.watch(run.record.id);
        h.advance(3 * TTL);
        expect(await watching.store.sweep()).toEqual({ orphans: [] });
        expect(await executing.store.sweep()).toEqual({ orphans: [] });
        leave();
        h.advance(TTL);
        expect(await watching.store.sweep()).toEqual({ orphans: [] });
        expect(await executing.store.sweep()).toEqual({ orphans: [run.record.id] });
      },
    );

    it('no run that waits on a person, for a decision (requires_action) or a message (awaiting_input)', async () => {
      const here = await h.open({ maxRunningPerKey: 2 });
      const deciding = await h.start(here, 'alpha');
      play(deciding.log, started(deciding.record), {
        event: 'tool.approval_required',
        approval_id: 'apr_1',
        tool: 'echo',
        tool_call_id: 'call_1',
        arguments: {},
        turn: 1,
        call_index: 0,
        expires_at: h.now() / 1000 + 3600,
        on_timeout: 'deny',
      });
      const chatting = await h.start(here, 'alpha');
      play(chatting.log, started(chatting.record), {
        event: 'run.awaiting_input',
        turn: 1,
        expires_at: h.now() / 1000 + 3600,
      });
      expect(deciding.log.summary.status).toBe('requires_action');
      expect(chatting.log.summary.status).toBe('awaiting_input');
      h.advance(3 * TTL);
      expect(await here.store.sweep()).toEqual({ orphans: [] });
    });

    it('no run that has ended', async () => {
      const here = await h.open();
      await h.finished(here, 'alpha');
      h.advance(TTL);
      expect(await here.store.sweep()).toEqual({ orphans: [] });
    });
  });

  describe('forgets a finished run', () => {
    it('once it has been finished for retentionMs, and its key with it', async () => {
      const here = await h.open();
      await here.store.claimKey('alpha', 'key-1', BODY);
      const { record } = await h.finished(here, 'alpha', { idempotency: { key: 'key-1', hash: BODY } });
      h.advance(RETENTION - 1000);
      await here.store.sweep();
      expect(await here.store.snapshot(record.id)).toBeDefined();
      h.advance(1000);
      await here.store.sweep();
      expect(await here.store.snapshot(record.id)).toBeUndefined();
      expect(await here.streams.join(record.id)).toBeUndefined();
      expect((await here.store.list('alpha', { limit: 10 })).data).toEqual([]);
      expect(await here.store.claimKey('alpha', 'key-1', BODY)).toEqual({ kind: 'claimed' });
      expect(await here.store.stats()).toMatchObject({ finished: 0 });
    });

    it('at once when asked to (forget), and keeps a queued or running one', async () => {
      const here = await h.open({ maxRunningPerKey: 5 });
      const done = await h.finished(here, 'alpha');
      const running = await h.start(here, 'alpha');
      play(running.log, started(running.record));
      const queued = await h.queue(here, 'alpha');
      for (const id of [done.record.id, running.record.id, queued.id]) await here.store.forget(id);
      expect(await here.store.snapshot(done.record.id)).toBeUndefined();
      expect(await here.store.snapshot(running.record.id)).toBeDefined();
      expect(await here.store.snapshot(queued.id)).toBeDefined();
      expect((await here.store.list('alpha', { limit: 10 })).data.map((run) => run.run_id).sort()).toEqual(
        [running.record.id, queued.id].sort(),
      );
    });

    it('asked to the moment its terminal event is written, before the store has it all', async () => {
      const here = await h.open();
      const run = await h.start(here, 'alpha');
      play(run.log, started(run.record), completed());
      await here.store.forget(run.record.id);
      expect(await here.store.snapshot(run.record.id)).toBeUndefined();
      expect((await here.store.list('alpha', { limit: 10 })).data).toEqual([]);
      await run.tracked;
    });
  });

  describe('keeps stored runs within maxStoredBytes', () => {
    it('forgetting the longest-finished runs first to make room for a new one', async () => {
      const one = h.finishedBytes('alpha');
      const request = recordBytes(h.newRun('alpha').record);
      // Three finished runs fill the budget but for half a request: a new run takes the place of the oldest, and only of it.
      const here = await h.open({ maxStoredBytes: 3 * one + Math.floor(request / 2), maxRunningPerKey: 5 });
      const finished = [];
      for (let i = 0; i < 3; i++) {
        finished.push(await h.finished(here, 'alpha'));
        h.advance(1000);
      }
      await h.start(here, 'alpha');
      const kept = await Promise.all(
        finished.map(async ({ record }) => (await here.store.snapshot(record.id)) !== undefined),
      );
      expect(kept).toEqual([false, true, true]);
    });

    it('forgetting no run within its retention at a sweep, even once running runs have grown past the budget', async () => {
      const one = h.finishedBytes('alpha');
      const here = await h.open({ maxStoredBytes: 3 * one, maxRunningPerKey: 5 });
      const first = await h.finished(here, 'alpha');
      h.advance(1000);
      const second = await h.finished(here, 'alpha');
      const running = await h.start(here, 'alpha');
      play(running.log, started(running.record), { event: 'message.delta', delta: 'y'.repeat(one), turn: 1 });
      // A shared store holds the events a moment after they are written: wait until another instance reads them.
      const reader = h.kind.shared ? await h.open() : here;
      await expect
        .poll(async () => (await reader.store.snapshot(running.record.id))?.snapshot.last_seq, { timeout: 10_000 })
        .toBe(1);
      await here.store.sweep();
      for (const run of [first, second, running]) expect(await here.store.snapshot(run.record.id)).toBeDefined();
    });

    it('giving back what a run held once its retention is over, whatever the retention swept', async () => {
      const one = h.finishedBytes('alpha');
      const request = recordBytes(h.newRun('beta').record);
      // Alpha's two finished runs fill the budget but for half a request; beta may not take their place.
      const here = await h.open({ maxStoredBytes: 2 * one + Math.floor(request / 2), maxRunningPerKey: 5 });
      await h.finished(here, 'alpha');
      await h.finished(here, 'alpha');
      expect(await here.store.submit(h.newRun('beta'))).toMatchObject({ kind: 'refused', code: 'store_full' });
      h.advance(RETENTION);
      await here.store.sweep();
      expect((await here.store.submit(h.newRun('beta'))).kind).not.toBe('refused');
    });

    it("making room for a key's new run from that key's own finished runs only, never another key's", async () => {
      const one = h.finishedBytes('alpha');
      const request = recordBytes(h.newRun('beta').record);
      // Alpha's finished run and beta's fill the budget: beta's new run takes its own run's place, never alpha's.
      const here = await h.open({ maxStoredBytes: one + request + Math.floor(request / 2), maxRunningPerKey: 5 });
      const alphas = await h.finished(here, 'alpha');
      h.advance(1000);
      const betas = await h.finished(here, 'beta');
      await h.start(here, 'beta');
      expect(await here.store.snapshot(alphas.record.id)).toBeDefined();
      expect(await here.store.snapshot(betas.record.id)).toBeUndefined();
      // With beta's own finished runs gone, its next run is refused rather than take alpha's place.
      expect(await here.store.submit(h.newRun('beta'))).toMatchObject({ kind: 'refused', code: 'store_full' });
      expect(await here.store.snapshot(alphas.record.id)).toBeDefined();
    });

    it("refusing a key's new run with key_store_full past its share, running runs counted, its own finished runs forgotten first", async () => {
      const one = h.finishedBytes('beta');
      const request = recordBytes(h.newRun('beta').record);
      const share = one + Math.floor(request / 2);
      const here = await h.open({ maxStoredBytesPerKey: share, maxRunningPerKey: 5 });
      const alphas = await h.finished(here, 'alpha');
      const betas = await h.finished(here, 'beta');
      // Beta's next run takes the place of beta's finished one; a larger one after it would pass beta's share.
      await h.start(here, 'beta');
      expect(await here.store.snapshot(betas.record.id)).toBeUndefined();
      const large = h.newRun('beta', { request: { input: 'x'.repeat(one) } });
      expect(await here.store.submit(large)).toEqual(keyStoreFull(request, share));
      expect(await here.store.snapshot(large.record.id)).toBeUndefined();
      // Alpha is untouched, and may still add runs.
      expect(await here.store.snapshot(alphas.record.id)).toBeDefined();
      expect((await here.store.submit(h.newRun('alpha'))).kind).not.toBe('refused');
    });
  });
}
