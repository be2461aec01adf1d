import { describe, expect, it } from 'vitest';
import { completed, play, type StoreHarness, started } from '../run-store-contract/store-harness.js';

/** `watch` and `subscribers`: who follows a run on this instance (docs/protocol.md §6, §8). */
export function subscriberContract(h: StoreHarness): void {
  describe('counts the subscribers on this instance', () => {
    it('of a run it publishes, from watch until each leaves, and across the run’s end', async () => {
      const here = await h.open();
      const run = await h.start(here, 'alpha');
      await here.streams.join(run.record.id);
      const leave = [here.streams.watch(run.record.id), here.streams.watch(run.record.id)];
      expect(here.streams.subscribers()).toBe(2);
      leave[0]!();
      leave[0]!();
      expect(here.streams.subscribers()).toBe(1);
      play(run.log, started(run.record), completed());
      await run.tracked;
      expect(here.streams.subscribers()).toBe(1);
      leave[1]!();
      expect(here.streams.subscribers()).toBe(0);
    });

    it.runIf(h.kind.shared)('of a run another instance publishes, on this instance only', async () => {
      const executing = await h.open();
      const watching = await h.open();
      const run = await h.start(executing, 'alpha');
      await watching.streams.join(run.record.id);
      const leave = watching.streams.watch(run.record.id);
      expect([watching.streams.subscribers(), executing.streams.subscribers()]).toEqual([1, 0]);
      leave();
      expect(watching.streams.subscribers()).toBe(0);
      play(run.log, started(run.record), completed());
      await run.tracked;
    });

    it('of no run it does not know', async () => {
      const here = await h.open();
      const leave = here.streams.watch('run_unknown');
      expect(here.streams.subscribers()).toBe(0);
      leave();
    });
  });
}
