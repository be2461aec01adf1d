import { describe, expect, it } from 'vitest';
import { MemoryWebhookOutbox } from '../../src/store/memory/memory-webhook-outbox.js';
import { silentLogger } from '../../src/telemetry/logger.js';
import { WebhookDispatcher } from '../../src/webhooks/webhook-dispatcher.js';
import type { PushTarget } from '../../src/webhooks/webhook-outbox.js';
import { eventually } from '../support/eventually.js';
import { serveLoopback } from '../support/loopback-server.js';

/**
 * A push notification in the webhooks' outbox (docs/a2a.md, "Push notifications"): attempted as a
 * webhook delivery is, with its receiver's headers, until its config is deleted — then it fails unsent,
 * whichever instance deleted the config, and is not retried.
 */

const SETTINGS = {
  secret: `whsec_${Buffer.alloc(32, 7).toString('base64')}`,
  allowedHosts: ['127.0.0.1'],
  timeoutMs: 1000,
  maxAttempts: 50,
  retryMs: 10,
  concurrency: 1,
  concurrencyPerKey: 1,
  breakerFailures: 1000,
  breakerMs: 30_000,
  pollMs: 10,
};

describe('a push delivery', () => {
  it("is retried with its receiver's headers while its config stands, and failed unsent once it is deleted", async () => {
    const seen: Array<Record<string, unknown>> = [];
    const receiver = await serveLoopback((req, res) => {
      seen.push({ ...req.headers });
      res.writeHead(503).end();
    });
    const outbox = new MemoryWebhookOutbox(60_000);
    let configStands = true;
    const dispatcher = new WebhookDispatcher({
      outbox,
      settings: SETTINGS,
      log: silentLogger,
      pushWanted: async (_push: PushTarget) => configStands,
    });
    try {
      dispatcher.enqueuePush({
        id: 'push_run_x_3_0_c1',
        runId: 'run_x',
        owner: 'alpha',
        url: `${receiver.url}/hook`,
        event: 'run.started',
        seq: 3,
        body: '{"statusUpdate":{}}',
        push: {
          taskId: 'run_x',
          configId: 'c1',
          headers: {
            'content-type': 'application/a2a+json',
            'x-a2a-notification-token': 't',
            authorization: 'Bearer c',
          },
        },
      });
      await eventually(() => seen.length >= 2, 'a retry');
      expect(seen[0]).toMatchObject({
        'content-type': 'application/a2a+json',
        'x-a2a-notification-token': 't',
        authorization: 'Bearer c',
        'webhook-id': 'push_run_x_3_0_c1',
      });
      configStands = false;
      const [settled] = await eventually(async () => {
        const deliveries = await outbox.list('run_x');
        return deliveries[0]?.status === 'failed' && deliveries;
      }, 'the delivery failed');
      expect(settled?.lastError).toBe('the push notification config was deleted');
      const attempts = seen.length;
      expect(settled?.attempts).toBeGreaterThanOrEqual(attempts);
      // Nothing more is sent: the delivery is settled, and the run's webhook snapshot never lists it.
      expect(await outbox.nextDue()).toBeUndefined();
      expect(await dispatcher.deliveries('run_x')).toEqual([]);
    } finally {
      await dispatcher.stop(0);
      await receiver.close();
    }
  });
});
