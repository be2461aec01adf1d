import { describe, expect, it } from 'vitest';
import type { ControlMessage } from '../../../src/runs/control-message.js';
import { completed, play, type StoreHarness, untilTerminal } from '../run-store-contract/store-harness.js';

const CANCEL: ControlMessage = { type: 'cancel', reason: 'client' };
const MESSAGE: ControlMessage = { type: 'message', message_id: 'msg_1', content: 'Go on.' };

/** `send` and `onEnded`: the messages that steer a run reach the inbox it was published with (docs/protocol.md §7, §8). */
export function controlContract(h: StoreHarness): void {
  describe('sends a control message', () => {
    it('to the inbox of a run this instance publishes', async () => {
      const here = await h.open();
      const run = await h.running(here, 'alpha');
      expect(await here.streams.send(run.record.id, CANCEL)).toBe('sent');
      expect(here.controls).toEqual([{ runId: run.record.id, message: CANCEL }]);
    });

    // A store of one process has one instance: the test above says it all.
    it.runIf(h.kind.shared)('to the instance that publishes the run, whichever instance it is sent from', async () => {
      const sender = await h.open();
      const executing = await h.open();
      const run = await h.running(executing, 'alpha');
      await sender.streams.send(run.record.id, CANCEL);
      await sender.streams.send(run.record.id, MESSAGE);
      await expect.poll(() => executing.controls, { timeout: 10_000 }).toHaveLength(2);
      expect(executing.controls).toEqual([
        { runId: run.record.id, message: CANCEL },
        { runId: run.record.id, message: MESSAGE },
      ]);
      expect(sender.controls).toEqual([]);
    });

    it('answering gone for a run that executes nowhere: ended, queued or unknown', async () => {
      const here = await h.open();
      const done = await h.finished(here, 'alpha');
      const queued = await h.queue(here, 'beta');
      for (const id of [done.record.id, queued.id, 'run_unknown'])
        expect(await here.streams.send(id, MESSAGE)).toBe('gone');
      expect(here.controls).toEqual([]);
    });
  });

  // Only instances that share a store can hold a run none of them executes (a Redis stall could leave one).
  describe.runIf(h.kind.shared)('ends a run its holder does not execute', () => {
    it('at a cancel, as cancelled, telling its holder (onEnded) and every reader', async () => {
      const holder = await h.open();
      const sender = await h.open();
      // Started for the holder, which never publishes it.
      const run = h.newRun('alpha', { startHere: true });
      expect((await holder.store.submit(run)).kind).toBe('started');
      expect(await sender.streams.send(run.record.id, CANCEL)).toBe('sent');
      const opened = await sender.streams.join(run.record.id);
      await untilTerminal(opened!.log);
      expect(opened!.log.events().map((event) => event.event)).toEqual(['run.started', 'run.cancelled']);
      await expect.poll(() => holder.ended, { timeout: 10_000 }).toEqual([run.record.id]);
      expect(sender.ended).toEqual([]);
      expect((await sender.store.snapshot(run.record.id))?.snapshot.status).toBe('cancelled');
    });

    it('never for a run it publishes, whose inbox takes the cancel', async () => {
      const here = await h.open();
      const run = await h.running(here, 'alpha');
      expect(await here.streams.send(run.record.id, CANCEL)).toBe('sent');
      play(run.log, completed());
      expect(await run.tracked).toBe(true);
      expect(here.ended).toEqual([]);
    });
  });
}
