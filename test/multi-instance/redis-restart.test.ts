import { describe, expect, it } from 'vitest';
import { type RunEvent, RunEventSchema } from '../../src/protocol/run-events.js';
import { assertEventOrder } from '../../src/protocol/verify-event-order.js';
import { readSseEvents } from '../../src/sse/read-sse-events.js';
import { eventually } from '../support/eventually.js';
import { type Instance, OVER_HTTP, postRun, readEvents, snapshotOf, useCluster } from './serve-cluster.js';

/**
 * Redis going away and coming back (docs/protocol.md §8): routes that need it answer 503
 * `store_unavailable`, nothing crashes, streams served from Redis end so their clients resume, and
 * every instance recovers by itself — with the runs it executed meanwhile stored whole.
 */
/** Short, so that Redis can be down for longer than the lease without a long test. */
const LEASE_SECONDS = 1;

describe('Redis restarting under two instances', () => {
  const cluster = useCluster(2, { RUNBRIDGE_LEASE_SECONDS: String(LEASE_SECONDS) });

  it('answers 503 while it is down, ends the streams it fed, and resumes every run where it was once it is back', async () => {
    const [a, b] = cluster.instances as [Instance, Instance];
    cluster.ors.holding.add('arith');
    const { runId } = await postRun(a, { env: 'arith', task: { split: 'train', index: 2 } });
    await eventually(() => cluster.ors.waiting() === 1, 'the held call');

    // B serves the run from Redis: its stream ends when Redis goes.
    const response = await fetch(`${b.url}/v1/runs/${runId}/events`);
    const seen: RunEvent[] = [];
    const reading = (async () => {
      try {
        for await (const frame of readSseEvents(response.body!))
          seen.push(RunEventSchema.parse(JSON.parse(frame.data)));
      } catch {
        // The connection was cut: what a client sees when the stream ends without its terminal event.
      }
    })();
    await eventually(() => seen.some((event) => event.event === 'tool.started'), 'events on B');

    // Down for longer than the lease: on the way back no instance may take the other for lost.
    await cluster.redis.kill();
    await reading;
    expect(seen.at(-1)?.event).not.toMatch(/^run\.(completed|failed|cancelled)$/);
    for (const instance of [a, b]) {
      const refused = await fetch(`${instance.url}/v1/runs`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: '{}',
      });
      expect(refused.status).toBe(503);
      expect(await refused.json()).toMatchObject({ error: { code: 'store_unavailable' } });
    }
    expect((await fetch(`${b.url}/v1/runs/${runId}`)).status).toBe(503);
    expect((await fetch(`${b.url}/v1/runs?limit=5`)).status).toBe(503);
    // The run goes on on A meanwhile.
    cluster.ors.holding.delete('arith');
    cluster.ors.release();
    // Longer than the lease: every lease has expired by the time Redis is back.
    await new Promise((resolve) => setTimeout(resolve, LEASE_SECONDS * 1500));
    await cluster.redis.start();

    // Back: the client resumes on B from the last event it saw, and gets exactly the rest.
    const rest = await eventually(
      async () => {
        const events = await readEvents(b, runId, seen.at(-1)!.seq);
        return events.at(-1)?.event === 'run.completed' ? events : undefined;
      },
      'the rest of the log',
      OVER_HTTP,
    );
    const whole = [...seen, ...rest];
    assertEventOrder(whole);
    expect(whole).toEqual(await readEvents(a, runId));
    expect(await snapshotOf(b, runId)).toMatchObject({ status: 'completed' });
    // Both instances take runs again; neither was taken for lost.
    for (const instance of [a, b]) {
      const { status, runId: next } = await postRun(instance, { env: 'arith' });
      expect(status).toBe(202);
      expect((await readEvents(instance === a ? b : a, next)).at(-1)).toMatchObject({ event: 'run.completed' });
    }
    expect(a.child.exitCode).toBeNull();
    expect(b.child.exitCode).toBeNull();
    expect(a.output() + b.output()).not.toContain('was ended with instance_lost');
  }, 120_000);
});
