import { describe, expect, it } from 'vitest';
import { BadRequestError } from '../../../src/errors.js';
import { ARGUMENTS_PREVIEW_CHARS } from '../../../src/protocol/run-snapshot.js';
import { invalidListCursor } from '../../../src/runs/run-store.js';
import { listItemOf, snapshotOf } from '../../../src/runs/snapshot-of.js';
import { completed, play, type StoreHarness, started, untilListed, untilTerminal } from './store-harness.js';

/** `track`, `open`, `snapshot` and `list`: a run played here reads back the same everywhere (docs/protocol.md §2, §8). */
export function logContract(h: StoreHarness): void {
  describe('keeps the log of a run this instance executes', () => {
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
      for (const { store } of readers) {
        const opened = await store.open(run.record.id);
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
      const opened = await reader.store.open(run.record.id);
      play(run.log, { event: 'message.delta', delta: 'Hello.', turn: 1 }, completed());
      await untilTerminal(opened!.log);
      expect(opened!.log.events()).toEqual(run.log.events());
      await run.tracked;
    });

    it('following a queued run from its first event for a reader that opened it before it started', async () => {
      const here = await h.open();
      const record = await h.queue(here, 'alpha');
      const opened = await here.store.open(record.id);
      expect(opened?.log.length).toBe(0);
      const [claimed] = await here.store.claim(1);
      const tracked = here.store.track(claimed!.record, claimed!.log);
      play(claimed!.log, started(record), completed());
      await untilTerminal(opened!.log);
      expect(opened!.log.events()).toEqual(claimed!.log.events());
      await tracked;
    });

    it('answering undefined for a run it does not know', async () => {
      const here = await h.open();
      expect(await here.store.open('run_unknown')).toBeUndefined();
      expect(await here.store.snapshot('run_unknown')).toBeUndefined();
    });
  });

  describe("lists an owner's runs", () => {
    it('newest first, a page at a time, filtered by status, and no other owner’s', async () => {
      const here = await h.open({ maxRunningPerKey: 5 });
      const first = await h.finished(here, 'alpha');
      h.advance(1000);
      const waiting = await h.queue(here, 'alpha');
      h.advance(1000);
      const last = await h.finished(here, 'alpha');
      h.advance(1000);
      const others = await h.finished(here, 'beta');
      const ids = async (page: Promise<{ data: Array<{ run_id: string }>; next: string | null }>) => {
        const { data, next } = await page;
        return { ids: data.map((run) => run.run_id), next };
      };
      const [one, two, three] = [last.record.id, waiting.id, first.record.id];
      expect(await ids(here.store.list('alpha', { limit: 2 }))).toEqual({ ids: [one, two], next: two });
      expect(await ids(here.store.list('alpha', { limit: 2, after: two }))).toEqual({ ids: [three], next: null });
      expect(await ids(here.store.list('alpha', { limit: 3 }))).toEqual({ ids: [one, two, three], next: null });
      expect(await ids(here.store.list('alpha', { limit: 1, status: 'completed' }))).toEqual({ ids: [one], next: one });
      expect(await ids(here.store.list('alpha', { limit: 1, status: 'completed', after: one }))).toEqual({
        ids: [three],
        next: null,
      });
      expect(await ids(here.store.list('alpha', { limit: 10, status: 'queued' }))).toEqual({ ids: [two], next: null });
      expect(await ids(here.store.list('alpha', { limit: 10, status: 'failed' }))).toEqual({ ids: [], next: null });
      expect(await ids(here.store.list('beta', { limit: 10 }))).toEqual({ ids: [others.record.id], next: null });
      expect((await here.store.list('alpha', { limit: 1 })).data[0]).toEqual(listItemOf(last.record, last.log));
    });

    it('showing each call a run waits on as a summary with a short preview of its arguments, while its snapshot keeps them whole', async () => {
      const here = await h.open();
      const run = await h.start(here, 'alpha');
      const long = { path: 'p'.repeat(100_000) };
      const short = { answer: 5 };
      const required = (approval_id: string, args: Record<string, unknown>, call_index: number) =>
        ({
          event: 'tool.approval_required',
          approval_id,
          tool: 'submit',
          tool_call_id: `call_${call_index}`,
          arguments: args,
          turn: 1,
          call_index,
          expires_at: 1_700_000_600,
          on_timeout: 'deny',
        }) as const;
      play(run.log, started(run.record), required('appr_long', long, 0), required('appr_short', short, 1));
      const readers = h.kind.shared ? [here, await h.open()] : [here];
      for (const { store } of readers) {
        await untilListed(store, 'alpha', run.log.lastSeq);
        const [item] = (await store.list('alpha', { limit: 1 })).data;
        expect(item?.status).toBe('requires_action');
        expect(item?.pending_approvals).toEqual([
          {
            approval_id: 'appr_long',
            tool: 'submit',
            tool_call_id: 'call_0',
            turn: 1,
            call_index: 0,
            expires_at: 1_700_000_600,
            arguments_preview: JSON.stringify(long).slice(0, ARGUMENTS_PREVIEW_CHARS),
            arguments_truncated: true,
          },
          expect.objectContaining({
            approval_id: 'appr_short',
            arguments_preview: '{"answer":5}',
            arguments_truncated: false,
          }),
        ]);
        expect(JSON.stringify(item).length).toBeLessThan(2_000);
        const snapshot = (await store.snapshot(run.record.id))?.snapshot;
        expect(snapshot?.pending_approvals.map((entry) => entry.arguments)).toEqual([long, short]);
      }
      play(run.log, completed());
      await run.tracked;
    });

    it("answering 400 invalid_cursor for a cursor naming an unknown run, another owner's or a forgotten one", async () => {
      const here = await h.open({ maxRunningPerKey: 5 });
      await h.finished(here, 'alpha');
      const others = await h.finished(here, 'beta');
      const forgotten = await h.finished(here, 'alpha');
      await here.store.forget(forgotten.record.id);
      for (const after of ['run_unknown', others.record.id, forgotten.record.id]) {
        const listing = here.store.list('alpha', { limit: 10, after });
        await expect(listing).rejects.toBeInstanceOf(BadRequestError);
        await expect(listing).rejects.toMatchObject({
          status: 400,
          code: 'invalid_cursor',
          message: invalidListCursor(after).message,
        });
      }
    });
  });
}
