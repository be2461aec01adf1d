import { describe, expect, it } from 'vitest';
import { MemoryWebhookOutbox } from '../../src/store/memory/memory-webhook-outbox.js';
import { RedisKeys } from '../../src/store/redis/redis-keys.js';
import { RedisWebhookOutbox } from '../../src/store/redis/redis-webhook-outbox.js';
import { useRedisPerTest } from '../support/redis-per-test.js';
import { webhookOutboxContract } from './webhook-outbox-contract.js';

webhookOutboxContract('MemoryWebhookOutbox', () => ({
  durable: false,
  open: async (retentionMs) => ({ outbox: new MemoryWebhookOutbox(retentionMs), close: async () => undefined }),
}));

webhookOutboxContract('RedisWebhookOutbox', () => {
  // Every test on keys of its own, which the outboxes it opens share.
  const redis = useRedisPerTest();
  return {
    durable: true,
    async open(retentionMs) {
      const connection = await redis.connect();
      return {
        outbox: new RedisWebhookOutbox(connection, new RedisKeys(redis.prefix), retentionMs),
        close: () => connection.close(),
      };
    },
  };
});

describe('RedisWebhookOutbox, on the data of a version without keys’ turns', () => {
  const redis = useRedisPerTest();

  it('takes the pending deliveries that version queued, as of the key ""', async () => {
    const connection = await redis.connect();
    try {
      const keys = new RedisKeys(redis.prefix);
      // What that version wrote: the delivery, without an owner, in the one due set.
      const { owner: _owner, ...legacy } = {
        id: 'msg_run_old_3',
        runId: 'run_old',
        owner: '',
        url: 'https://hooks.example/runs',
        event: 'run.completed' as const,
        seq: 3,
        body: '{}',
        status: 'pending' as const,
        attempts: 1,
        lastStatus: 503,
        lastError: 'the receiver answered 503',
        nextAttemptAt: 1000,
        deliveredAt: null,
      };
      await connection.command
        .multi()
        .set(keys.webhook(legacy.id), JSON.stringify(legacy))
        .zadd(keys.fixed('webhooksDue'), 1000, legacy.id)
        .exec();
      const outbox = new RedisWebhookOutbox(connection, keys, 60_000);
      expect(await outbox.claim(5, 999, 5000)).toEqual([]);
      const [claimed] = await outbox.claim(5, 1000, 5000, { perOwner: 1, inFlight: new Map() });
      expect(claimed).toEqual({ ...legacy, owner: '' });
      await outbox.settle({ ...claimed!, status: 'delivered', attempts: 2, lastStatus: 204, deliveredAt: 1001 });
      expect(await outbox.nextDue()).toBeUndefined();
      expect(await outbox.claim(5, 10_000, 5000)).toEqual([]);
    } finally {
      await connection.close();
    }
  });
});
