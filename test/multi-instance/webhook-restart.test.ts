import { randomBytes } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import { afterEach, describe, expect, it } from 'vitest';
import type { RunSnapshot } from '../../src/protocol/run-snapshot.js';
import type { WebhookDelivery } from '../../src/protocol/webhook.js';
import { eventually } from '../support/eventually.js';
import { startWebhookReceiver, type WebhookReceiver } from '../support/webhook-receiver.js';
import { type Cluster, type Instance, OVER_HTTP, postRun, snapshotOf, startCluster } from './serve-cluster.js';

/** The first webhook delivery of a snapshot as `snapshotOf` answers it. */
function deliveryOf(snapshot: Record<string, unknown>): WebhookDelivery | undefined {
  return (snapshot as Partial<RunSnapshot>).webhook?.deliveries[0];
}

const SECRET = `whsec_${randomBytes(32).toString('base64')}`;

/**
 * Webhooks on the Redis store (docs/protocol.md §9): a delivery still pending when its instance dies
 * stays in Redis, and another instance — or the same one restarted — delivers it.
 */
describe('a pending webhook delivery', () => {
  let cluster: Cluster | undefined;
  let hooks: WebhookReceiver | undefined;
  afterEach(async () => {
    await cluster?.stop();
    await hooks?.close();
    cluster = hooks = undefined;
  });

  it('survives its instance being SIGKILLed: the next instance delivers it, same id, signed', async () => {
    hooks = await startWebhookReceiver((n) => (n === 0 ? 503 : 204));
    cluster = await startCluster(1, {
      RUNBRIDGE_WEBHOOK_SECRET: SECRET,
      RUNBRIDGE_WEBHOOK_ALLOWED_HOSTS: '127.0.0.1',
      RUNBRIDGE_WEBHOOK_RETRY_SECONDS: '2',
    });
    const [a] = cluster.instances as [Instance];
    const { runId } = await postRun(a, { env: 'arith', webhook: { url: hooks.url } });
    const [first] = await hooks.waitFor(1);
    await eventually(
      async () => deliveryOf(await snapshotOf(a, runId))?.attempts === 1,
      'the first attempt recorded',
      OVER_HTTP,
    );
    a.child.kill('SIGKILL');
    await a.exited;

    const b = await cluster.add('B');
    const [, second] = await hooks.waitFor(2);
    expect(second?.headers['webhook-id']).toBe(first?.headers['webhook-id']);
    const payload = new Webhook(SECRET).verify(second?.body ?? '', second?.headers as Record<string, string>) as {
      type: string;
      data: { run: unknown };
    };
    expect(payload).toMatchObject({ type: 'run.completed', data: { run: { run_id: runId, status: 'completed' } } });
    const delivery = await eventually(
      async () => {
        const found = deliveryOf(await snapshotOf(b, runId));
        return found?.status === 'delivered' ? found : undefined;
      },
      'the delivery recorded as delivered',
      OVER_HTTP,
    );
    expect(delivery).toMatchObject({ attempts: 2, last_status: 204 });
    expect(hooks.received).toHaveLength(2);
  });
});
