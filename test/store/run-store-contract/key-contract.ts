import { describe, expect, it } from 'vitest';
import { queueFull } from '../../../src/store/refusals.js';
import { BODY, OTHER_BODY, type StoreHarness } from './store-harness.js';

/** `claimKey`, `releaseKey`, and the binding `submit` makes: one run per owner and `Idempotency-Key` (docs/protocol.md §6). */
export function keyContract(h: StoreHarness): void {
  describe('holds Idempotency-Keys', () => {
    it('claiming a fresh key, binding it to the run submitted under it, and answering that run to the same body', async () => {
      const here = await h.open();
      expect(await here.store.claimKey('alpha', 'key-1', BODY)).toEqual({ kind: 'claimed' });
      const run = await h.start(here, 'alpha', { idempotency: { key: 'key-1', hash: BODY } });
      expect(await here.store.claimKey('alpha', 'key-1', BODY)).toEqual({ kind: 'run', runId: run.record.id });
    });

    it('binding the key of a queued run as well', async () => {
      const here = await h.open();
      await here.store.claimKey('alpha', 'key-1', BODY);
      const record = await h.queue(here, 'alpha', { idempotency: { key: 'key-1', hash: BODY } });
      expect(await here.store.claimKey('alpha', 'key-1', BODY)).toEqual({ kind: 'run', runId: record.id });
    });

    it('answering conflict to another body, while the run is created and after', async () => {
      const here = await h.open();
      await here.store.claimKey('alpha', 'key-1', BODY);
      expect(await here.store.claimKey('alpha', 'key-1', OTHER_BODY)).toEqual({ kind: 'conflict' });
      await h.start(here, 'alpha', { idempotency: { key: 'key-1', hash: BODY } });
      expect(await here.store.claimKey('alpha', 'key-1', OTHER_BODY)).toEqual({ kind: 'conflict' });
    });

    it('answering pending to the same body while the run is created, settled once it is bound', async () => {
      const here = await h.open();
      await here.store.claimKey('alpha', 'key-1', BODY);
      const pending = await here.store.claimKey('alpha', 'key-1', BODY);
      expect(pending.kind).toBe('pending');
      const run = await h.start(here, 'alpha', { idempotency: { key: 'key-1', hash: BODY } });
      await (pending as { settled: Promise<void> }).settled;
      expect(await here.store.claimKey('alpha', 'key-1', BODY)).toEqual({ kind: 'run', runId: run.record.id });
    });

    it('keeping the key of a refused run pending until it is released, then letting a retry claim it', async () => {
      const here = await h.open({ maxQueuedRuns: 0 });
      await here.store.claimKey('alpha', 'key-1', BODY);
      const refused = h.newRun('alpha', { idempotency: { key: 'key-1', hash: BODY }, startHere: false });
      expect(await here.store.submit(refused)).toEqual(queueFull(0));
      expect((await here.store.claimKey('alpha', 'key-1', BODY)).kind).toBe('pending');
      await here.store.releaseKey('alpha', 'key-1');
      expect(await here.store.claimKey('alpha', 'key-1', BODY)).toEqual({ kind: 'claimed' });
    });

    it('releasing only a key still being created: a bound key stays bound', async () => {
      const here = await h.open();
      await here.store.claimKey('alpha', 'key-1', BODY);
      const run = await h.start(here, 'alpha', { idempotency: { key: 'key-1', hash: BODY } });
      await here.store.releaseKey('alpha', 'key-1');
      expect(await here.store.claimKey('alpha', 'key-1', BODY)).toEqual({ kind: 'run', runId: run.record.id });
    });

    it('freeing the key of a forgotten run, for another body too', async () => {
      const here = await h.open();
      await here.store.claimKey('alpha', 'key-1', BODY);
      const run = await h.finished(here, 'alpha', { idempotency: { key: 'key-1', hash: BODY } });
      await here.store.forget(run.record.id);
      expect(await here.store.claimKey('alpha', 'key-1', OTHER_BODY)).toEqual({ kind: 'claimed' });
    });

    it('keeping the keys of two owners apart', async () => {
      const here = await h.open();
      await here.store.claimKey('alpha', 'key-1', BODY);
      await h.start(here, 'alpha', { idempotency: { key: 'key-1', hash: BODY } });
      expect(await here.store.claimKey('beta', 'key-1', OTHER_BODY)).toEqual({ kind: 'claimed' });
    });
  });
}
