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
