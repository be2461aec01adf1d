import { describe, expect, it } from 'vitest';
import { assertEventOrder } from '../../src/protocol/verify-event-order.js';
import { readSseEvents } from '../../src/sse/read-sse-events.js';
import { eventually } from '../support/eventually.js';
import {
  cancel,
  type Instance,
  OVER_HTTP,
  postRun,
  readEvents,
  snapshotOf,
  startCluster,
  useCluster,
} from './serve-cluster.js';

/**
 * Three `runbridge serve` processes on one Redis (docs/protocol.md §8): any instance answers any route for
 * any run — start on one, stream, resume, cancel or list on another.
 */
/** The ids of the cancelled runs `instance` lists (listing touches no run). */
async function cancelledOn(instance: Instance): Promise<string[]> {
  const page = (await (await fetch(`${instance.url}/v1/runs?status=cancelled&limit=100`)).json()) as {
    data: Array<{ run_id: string }>;
  };
  return page.data.map((run) => run.run_id);
}

describe('three instances on one Redis', () => {
  // A low running quota per key lets a test queue a run without filling 3 × 64 slots.
  const cluster = useCluster(3, { RUNBRIDGE_MAX_RUNNING_PER_KEY: '2' });

  it('plays a run started on A the same for subscribers on A, B and C, resumed anywhere, listed everywhere', async () => {
    const [a, b, c] = cluster.instances as [Instance, Instance, Instance];
    const { status, runId } = await postRun(a, { env: 'arith', task: { split: 'train', index: 3 } });
    expect(status).toBe(202);
    const [onA, onB, onC] = await Promise.all([readEvents(a, runId), readEvents(b, runId), readEvents(c, runId)]);
    assertEventOrder(onB);
    expect(onB.at(-1)).toMatchObject({ event: 'run.completed', reward: 1 });
    expect(onA).toEqual(onB);
    expect(onC).toEqual(onB);

    // Resumed on another instance from any cursor: exactly the rest of the log.
    const cut = Math.floor(onB.length / 2);
    expect(await readEvents(c, runId, cut)).toEqual(onB.slice(cut + 1));
    const finished = await fetch(`${b.url}/v1/runs/${runId}/events?after=${onB.at(-1)!.seq}`);
    expect(finished.status).toBe(204);

    for (const instance of [a, b, c]) {
      expect(await snapshotOf(instance, runId)).toMatchObject({
        run_id: runId,
        status: 'completed',
        reward: 1,
        stop_reason: 'finished',
        last_seq: onB.at(-1)!.seq,
      });
      const list = (await (await fetch(`${instance.url}/v1/runs?limit=100`)).json()) as {
        data: Array<{ run_id: string }>;
      };
      expect(list.data.map((run) => run.run_id)).toContain(runId);
    }
  });

  it('streams a run live from an instance that does not execute it, and cancels it from a third', async () => {
    const [a, b, c] = cluster.instances as [Instance, Instance, Instance];
    cluster.ors.holding.add('workspace');
    try {
      const { runId } = await postRun(a, { env: 'workspace', task: { split: 'train', index: 0 } });
      const response = await fetch(`${b.url}/v1/runs/${runId}/events`);
      expect(response.status).toBe(200);
      const events = [];
      let cancelled = false;
      for await (const frame of readSseEvents(response.body!)) {
        const event = JSON.parse(frame.data) as { event: string };
        events.push(event);
        if (event.event === 'tool.started' && !cancelled) {
          cancelled = true;
          // The call is held in ORS: the run is mid-call on A when C asks to cancel it.
          await eventually(() => cluster.ors.waiting() > 0, 'the held call');
          const answer = await cancel(c, runId);
          expect(answer.status).toBe(202);
        }
      }
      expect(events.at(-2)).toMatchObject({ event: 'tool.completed', error: true });
      expect(events.at(-1)).toMatchObject({ event: 'run.cancelled', reason: 'client' });
      expect(await snapshotOf(c, runId)).toMatchObject({ status: 'cancelled' });
      await eventually(() => cluster.ors.openSessions() === 0, 'the session deleted');
    } finally {
      cluster.ors.holding.delete('workspace');
      cluster.ors.release();
    }
  });

  it("counts a key's running quota over every instance, and cancels on B a run queued behind it, which then has a whole log everywhere", async () => {
    const [a, b, c] = cluster.instances as [Instance, Instance, Instance];
    cluster.ors.holding.add('arith');
    const started: string[] = [];
    try {
      // One run on A, one on B: the key's quota of 2 is used up across the cluster, so C queues the third.
      started.push((await postRun(a, { env: 'arith' })).runId, (await postRun(b, { env: 'arith' })).runId);
      const queued = await postRun(c, { env: 'arith' });
      expect(queued.body.status).toBe('queued');
      expect((await cancel(b, queued.runId)).status).toBe(202);
      const log = await readEvents(c, queued.runId);
      expect(log.map((event) => event.event)).toEqual(['run.started', 'run.cancelled']);
    } finally {
      for (const id of started) await cancel(c, id);
      cluster.ors.holding.delete('arith');
      cluster.ors.release();
    }
  });

  it('keeps a run that a subscriber on another instance watches, and cancels it as orphaned once nobody does', async () => {
    const pair = await startCluster(2, { RUNBRIDGE_ORPHAN_TTL_SECONDS: '3' });
    try {
      const [a, b] = pair.instances as [Instance, Instance];
      pair.ors.holding.add('arith');
      const { runId } = await postRun(a, { env: 'arith' });
      const watching = new AbortController();
      const response = await fetch(`${b.url}/v1/runs/${runId}/events`, { signal: watching.signal });
      expect(response.status).toBe(200);
      // Only B's subscriber touches the run. The control: a run started on A later that nobody watches.
      // Once it is cancelled as orphaned, a sweep has judged the watched run, touched at the start only
      // were it not for B, past the TTL too (and would have cancelled it first: A judges its runs in the
      // order they started). The test looks by listing, which touches no run.
      const control = await postRun(a, { env: 'arith' });
      await eventually(async () => (await cancelledOn(b)).includes(control.runId), 'the control orphaned', OVER_HTTP);
      expect(await snapshotOf(a, runId)).toMatchObject({ status: 'running' });
      watching.abort();
      // Untouched now: orphaned after the TTL, on the sweep after it.
      await eventually(async () => (await cancelledOn(b)).includes(runId), 'the orphan cancelled', OVER_HTTP);
      expect((await readEvents(b, runId)).at(-1)).toMatchObject({ event: 'run.cancelled', reason: 'orphaned' });
    } finally {
      pair.ors.release();
      await pair.stop();
    }
  }, 60_000);

  it('opens a stream on B with a stream token issued on A, both on one shared secret', async () => {
    const keyed = await startCluster(2, { RUNBRIDGE_API_KEYS: 'alpha-key-0123456789' });
    try {
      const [a, b] = keyed.instances as [Instance, Instance];
      const auth = { Authorization: 'Bearer alpha-key-0123456789' };
      const { runId } = await postRun(a, { env: 'arith' }, auth);
      const issued = await fetch(`${a.url}/v1/runs/${runId}/stream-token`, {
        method: 'POST',
        headers: { ...auth, 'Content-Type': 'application/json' },
        body: '{}',
      });
      const { events_url } = (await issued.json()) as { events_url: string };
      const streamed = await fetch(`${b.url}${events_url}`);
      expect(streamed.status).toBe(200);
      const text = await streamed.text();
      expect(text).toContain('event: run.completed');
    } finally {
      await keyed.stop();
    }
  }, 60_000);
});
