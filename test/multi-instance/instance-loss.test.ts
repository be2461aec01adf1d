import { afterEach, describe, expect, it } from 'vitest';
import type { RunEvent } from '../../src/protocol/run-events.js';
import { assertEventOrder } from '../../src/protocol/verify-event-order.js';
import { eventually } from '../support/eventually.js';
import { startWebhookReceiver, type WebhookReceiver } from '../support/webhook-receiver.js';
import {
  type Cluster,
  type Instance,
  OVER_HTTP,
  postRun,
  readEvents,
  snapshotOf,
  startCluster,
} from './serve-cluster.js';

const LEASE_SECONDS = 2;
const WEBHOOK_SECRET = `whsec_${Buffer.alloc(32, 1).toString('base64')}`;

/**
 * Losing an instance (docs/protocol.md §8): its running runs end with `run.failed` `instance_lost` within the
 * lease, subscribers on every instance get that terminal event, runs waiting in the queue start
 * elsewhere, and nobody hangs. SIGTERM, by contrast, drains as ever.
 */
describe('an instance that goes away', () => {
  let cluster: Cluster | undefined;
  let hooks: WebhookReceiver | undefined;
  afterEach(async () => {
    await cluster?.stop();
    cluster = undefined;
    await hooks?.close();
    hooks = undefined;
  });

  it('SIGKILLed mid-run: its runs fail with instance_lost within the lease, seen on every instance and by their webhooks; its queued run starts elsewhere', async () => {
    hooks = await startWebhookReceiver();
    cluster = await startCluster(2, {
      RUNBRIDGE_LEASE_SECONDS: String(LEASE_SECONDS),
      RUNBRIDGE_MAX_CONCURRENT_RUNS: '1',
      RUNBRIDGE_WEBHOOK_SECRET: WEBHOOK_SECRET,
      RUNBRIDGE_WEBHOOK_ALLOWED_HOSTS: '127.0.0.1',
    });
    const [a, b] = cluster.instances as [Instance, Instance];
    cluster.ors.holding.add('arith');
    // A executes one run, B another; both are held mid-call, so the third waits in the queue.
    const onA = await postRun(a, { env: 'arith', webhook: { url: `${hooks.url}/lost`, events: ['run.failed'] } });
    await eventually(() => cluster!.ors.waiting() === 1, 'the first held call');
    const onB = await postRun(b, { env: 'arith' });
    await eventually(() => cluster!.ors.waiting() === 2, 'the second held call');
    const queued = await postRun(a, { env: 'workspace' });
    expect(queued.body.status).toBe('queued');

    const watchers = [readEvents(a, onA.runId).catch(() => undefined), readEvents(b, onA.runId)];
    await eventually(async () => ((await snapshotOf(b, onA.runId)).last_seq as number) >= 0, 'a log', OVER_HTTP);
    a.child.kill('SIGKILL');

    // Ended once A's lease lapsed, a renewal period and a sweep later (the test's timeout bounds it).
    const seen = (await watchers[1]) as RunEvent[];
    assertEventOrder(seen);
    expect(seen.at(-2)).toMatchObject({ event: 'tool.completed', error: true });
    expect(seen.at(-1)).toMatchObject({ event: 'run.failed', code: 'instance_lost' });
    // The watcher on A lost its connection with A; resuming on B gives the end.
    const c = await cluster.add('C', { RUNBRIDGE_MAX_CONCURRENT_RUNS: '1' });
    expect(await readEvents(c, onA.runId, seen.at(-3)!.seq)).toEqual(seen.slice(-2));
    expect(await snapshotOf(c, onA.runId)).toMatchObject({ status: 'failed', error: { code: 'instance_lost' } });
    // The instance that ended the run delivered its webhook, as for any end.
    const [delivery] = await hooks.waitFor(1);
    expect(delivery!.path).toBe('/lost');
    expect(JSON.parse(delivery!.body)).toMatchObject({
      type: 'run.failed',
      data: { run: { run_id: onA.runId, status: 'failed' }, event: { event: 'run.failed', code: 'instance_lost' } },
    });

    // The queued run, posted to A, starts on C (B is still busy) and completes.
    const log = await readEvents(c, queued.runId);
    expect(log.at(-1)).toMatchObject({ event: 'run.completed' });
    cluster.ors.holding.delete('arith');
    cluster.ors.release();
    expect((await readEvents(c, onB.runId)).at(-1)).toMatchObject({ event: 'run.completed' });
  }, 90_000);

  it('SIGTERMed: drains its runs as ever, and subscribers on other instances get their terminal events', async () => {
    cluster = await startCluster(2, { RUNBRIDGE_SHUTDOWN_GRACE_SECONDS: '1' });
    const [a, b] = cluster.instances as [Instance, Instance];
    cluster.ors.holding.add('arith');
    const runs = await Promise.all(
      [1, 2, 3].map((index) => postRun(a, { env: 'arith', task: { split: 'train', index } })),
    );
    await eventually(() => cluster!.ors.waiting() === 3, 'three held calls');
    const watchers = runs.map(({ runId }) => readEvents(b, runId));
    await eventually(async () => ((await snapshotOf(b, runs[2]!.runId)).last_seq as number) >= 0, 'logs', OVER_HTTP);
    a.child.kill('SIGTERM');
    expect(await a.exited).toBe(0);
    for (const log of await Promise.all(watchers)) {
      assertEventOrder(log);
      expect(log.at(-1)).toMatchObject({ event: 'run.cancelled', reason: 'shutdown' });
    }
    expect(cluster.ors.openSessions()).toBe(0);
  }, 90_000);
});
