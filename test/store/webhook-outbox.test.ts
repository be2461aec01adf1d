import { afterAll, beforeAll, beforeEach } from 'vitest';
import { MemoryWebhookOutbox } from '../../src/store/memory/memory-webhook-outbox.js';
import { RedisConnection } from '../../src/store/redis/redis-connection.js';
import { RedisKeys } from '../../src/store/redis/redis-keys.js';
import { RedisWebhookOutbox } from '../../src/store/redis/redis-webhook-outbox.js';
import { startTestRedis, type TestRedis } from '../support/redis-server.js';
import { webhookOutboxContract } from './webhook-outbox-contract.js';

webhookOutboxContract('MemoryWebhookOutbox', () => ({
  durable: false,
  open: async (retentionMs) => ({ outbox: new MemoryWebhookOutbox(retentionMs), close: async () => undefined }),
}));

webhookOutboxContract('RedisWebhookOutbox', () => {
  let redis: TestRedis;
  let prefix: string;
  beforeAll(async () => {
    redis = await startTestRedis();
  });
  afterAll(() => redis?.stop());
  // Every test on keys of its own, which the outboxes it opens share.
  beforeEach(() => {
    prefix = redis.prefix();
  });
  return {
    durable: true,
    async open(retentionMs) {
      const connection = new RedisConnection(redis.url, { commandTimeoutMs: 2000 });
      await connection.connect(10_000);
      return {
        outbox: new RedisWebhookOutbox(connection, new RedisKeys(prefix), retentionMs),
        close: () => connection.close(),
      };
    },
  };
});
