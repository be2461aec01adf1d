import { describe, expect, it } from 'vitest';
import { BadRequestError } from '../../../src/errors.js';
import { ARGUMENTS_PREVIEW_CHARS } from '../../../src/protocol/run-snapshot.js';
import { invalidListCursor } from '../../../src/runs/run-store.js';
import { listItemOf } from '../../../src/runs/snapshot-of.js';
import { completed, play, type StoreHarness, started, untilListed } from './store-harness.js';

/** `list` and `snapshot`: an owner's runs as lists show them, a page at a time (docs/protocol.md §2.6). */
export function listContract(h: StoreHarness): void {
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
