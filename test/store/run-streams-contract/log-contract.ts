import { describe, expect, it } from 'vitest';
import { snapshotOf } from '../../../src/runs/snapshot-of.js';
import { completed, play, type StoreHarness, started, untilTerminal } from '../run-store-contract/store-harness.js';

/** `publish` and `join`: a run played here reads back the same everywhere, live (docs/protocol.md §2, §8). */
export function logContract(h: StoreHarness): void {
  describe('keeps the log of a run this instance publishes', () => {
    it('giving back through open the events played into it, in order, and through snapshot their fold', async () => {
      const here = await h.open();
      const run = await h.start(here, 'alpha');
      const events = play(
        run.log,
        started(run.record),
        { event: 'message.delta', delta: 'Thinking.', turn: 1 },
        {
          event: 'turn.completed',
          turn: 1,
          finish_reason: 'stop',
          usage: { input_tokens: 10, output_tokens: 2, total_tokens: 12 },
        },
        completed(),
      );
      await run.tracked;
      const readers = h.kind.shared ? [here, await h.open()] : [here];
      for (const { store, streams } of readers) {
        const opened = await streams.join(run.record.id);
        expect(opened?.record).toEqual(run.record);
        expect(opened?.log.events()).toEqual(events);
        expect(await store.snapshot(run.record.id)).toEqual({
          owner: 'alpha',
          snapshot: snapshotOf(run.record, run.log),
        });
      }
      expect((await here.store.snapshot(run.record.id))?.snapshot).toMatchObject({
        status: 'completed',
        reward: 1,
        output: 'Done.',
        last_seq: 3,
      });
    });

    it('showing a live run to whoever opened it as the events are written, to its end', async () => {
      const here = await h.open();
      const reader = h.kind.shared ? await h.open() : here;
      const run = await h.start(here, 'alpha');
      play(run.log, started(run.record));
      const opened = await reader.streams.join(run.record.id);
      play(run.log, { event: 'message.delta', delta: 'Hello.', turn: 1 }, completed());
      await untilTerminal(opened!.log);
      expect(opened!.log.events()).toEqual(run.log.events());
      await run.tracked;
    });

    it('following a queued run from its first event for a reader that opened it before it started', async () => {
      const here = await h.open();
      const record = await h.queue(here, 'alpha');
      const opened = await here.streams.join(record.id);
      expect(opened?.log.length).toBe(0);
      const [claimed] = await here.store.claim(1);
      const { tracked } = h.publish(here, claimed!);
      play(claimed!.log, started(record), completed());
      await untilTerminal(opened!.log);
      expect(opened!.log.events()).toEqual(claimed!.log.events());
      await tracked;
    });

    it('joining no run it does not know', async () => {
      const here = await h.open();
      expect(await here.streams.join('run_unknown')).toBeUndefined();
      expect(await here.store.snapshot('run_unknown')).toBeUndefined();
    });
  });
}
