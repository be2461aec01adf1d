import { randomBytes } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import type { RunSnapshot } from '../../src/protocol/run-snapshot.js';
import type { WebhookDelivery } from '../../src/protocol/webhook.js';
import { eventually } from '../support/eventually.js';
import { startTestBridge, type TestBridge } from '../support/start-test-bridge.js';
import { type Reply, startWebhookReceiver, type WebhookReceiver } from '../support/webhook-receiver.js';

/**
 * Webhook deliveries are shared between keys, and a dead receiver costs little (docs/webhooks.md#sharing):
 * one key's receiver that never answers cannot hold every delivery slot, and once a receiver has failed
 * `RUNBRIDGE_WEBHOOK_BREAKER_FAILURES` times in a row its key's deliveries to it are not sent for a while.
 * Nothing here waits out a time: the receivers' hanging requests are the events that settle it.
 */

const SECRET = `whsec_${randomBytes(32).toString('base64')}`;
const KEY_A = 'tenant-a-0123456789abcdef';
const KEY_B = 'tenant-b-0123456789abcdef';
const stops: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const stop of stops.splice(0).reverse()) await stop();
});

async function receiver(reply: (n: number) => Reply): Promise<WebhookReceiver> {
  const started = await startWebhookReceiver(reply);
  stops.push(() => started.close());
  return started;
}

async function bridge(env: Record<string, string>): Promise<TestBridge> {
  const started = await startTestBridge({
    RUNBRIDGE_WEBHOOK_SECRET: SECRET,
    RUNBRIDGE_WEBHOOK_ALLOWED_HOSTS: '127.0.0.1',
    RUNBRIDGE_WEBHOOK_RETRY_SECONDS: '0.05',
    RUNBRIDGE_WEBHOOK_POLL_SECONDS: '0.02',
    ...env,
  });
  stops.push(() => started.shutdown());
  return started;
}

const as = (key: string) => ({ headers: { Authorization: `Bearer ${key}` } });

async function deliveriesOf(target: TestBridge, runId: string, key?: string): Promise<WebhookDelivery[]> {
  const response = await target.fetch(`/v1/runs/${runId}`, key === undefined ? {} : as(key));
  return ((await response.json()) as RunSnapshot).webhook?.deliveries ?? [];
}

/** Starts six runs whose webhook is `url`, one after another, and resolves to their deliveries once every one is `status`. */
async function sixRunsSettled(
  target: TestBridge,
  url: string,
  status: 'delivered' | 'failed',
): Promise<WebhookDelivery[]> {
  const runs: string[] = [];
  for (let run = 0; run < 6; run++) runs.push(await target.startRun({ webhook: { url } }));
  return eventually(async () => {
    const all = (await Promise.all(runs.map((runId) => deliveriesOf(target, runId)))).flat();
    return all.length === runs.length && all.every((delivery) => delivery.status === status) && all;
  }, `every delivery to be ${status}`);
}

describe('webhook deliveries of two keys', () => {
  it("reach key B's receiver while key A's receiver holds every delivery of A it took, unanswered", async () => {
    const deadA = await receiver(() => 'hang');
    const liveB = await receiver(() => 204);
    // Attempts that never time out here: what frees a slot is only another key's turn.
    const target = await bridge({
      RUNBRIDGE_API_KEYS: `${KEY_A},${KEY_B}`,
      RUNBRIDGE_WEBHOOK_TIMEOUT_SECONDS: '600',
      // Stopping waits for no attempt of A's: none would end.
      RUNBRIDGE_SHUTDOWN_GRACE_SECONDS: '0.1',
    });
    for (let run = 0; run < 24; run++) await target.startRun({ webhook: { url: `${deadA.url}/a` } }, as(KEY_A));
    // A's share of the 16 slots (half, with two keys) waits on A's receiver; the rest of A's queue waits.
    await deadA.waitFor(8);

    const runB = await target.startRun({ webhook: { url: `${liveB.url}/b` } }, as(KEY_B));
    await liveB.waitFor(1);
    await eventually(async () => (await deliveriesOf(target, runB, KEY_B))[0]?.status === 'delivered', 'B delivered');
    // Meanwhile not one attempt of A's ended, and A held no more than its share.
    expect(deadA.received).toHaveLength(8);
    expect(deadA.maxConcurrent).toBe(8);
  });
});

describe("a receiver that keeps failing, one key's", () => {
  it('is not sent to once it failed RUNBRIDGE_WEBHOOK_BREAKER_FAILURES times in a row, and says why', async () => {
    const dead = await receiver(() => 'hang');
    const target = await bridge({
      RUNBRIDGE_WEBHOOK_CONCURRENCY: '1',
      RUNBRIDGE_WEBHOOK_TIMEOUT_SECONDS: '0.2',
      RUNBRIDGE_WEBHOOK_MAX_ATTEMPTS: '2',
      RUNBRIDGE_WEBHOOK_BREAKER_FAILURES: '3',
      RUNBRIDGE_WEBHOOK_BREAKER_SECONDS: '600',
    });
    const deliveries = await sixRunsSettled(target, dead.url, 'failed');
    // Three attempts reached it; every later one was not sent, and its delivery says why.
    expect(dead.received).toHaveLength(3);
    const notSent = deliveries.filter((delivery) => delivery.last_error?.startsWith('not sent'));
    expect(notSent.length).toBeGreaterThanOrEqual(deliveries.length - 3);
    for (const delivery of notSent) {
      expect(delivery.last_error).toMatch(/failed 3 times in a row \(no answer within 0.2 s\)/);
    }
  });

  it('is tried again once the breaker has waited, and sent to again when it answers', async () => {
    // Fails three times, then answers.
    const flaky = await receiver((n) => (n < 3 ? 500 : 204));
    const target = await bridge({
      RUNBRIDGE_WEBHOOK_CONCURRENCY: '1',
      RUNBRIDGE_WEBHOOK_MAX_ATTEMPTS: '100',
      RUNBRIDGE_WEBHOOK_BREAKER_FAILURES: '3',
      RUNBRIDGE_WEBHOOK_BREAKER_SECONDS: '0.2',
    });
    const deliveries = await sixRunsSettled(target, flaky.url, 'delivered');
    // The three failures, then each delivery once: the attempts made while the breaker was open (the
    // deliveries already due when it opened) never reached the receiver.
    expect(flaky.received).toHaveLength(3 + deliveries.length);
    const attempts = deliveries.reduce((sum, delivery) => sum + delivery.attempts, 0);
    expect(attempts).toBeGreaterThan(flaky.received.length);
  });
});
