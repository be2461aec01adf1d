import { afterAll, beforeAll, beforeEach } from 'vitest';
import { MemoryRolloutStore } from '../../src/store/memory/memory-rollout-store.js';
import { RedisConnection } from '../../src/store/redis/redis-connection.js';
import { RedisKeys } from '../../src/store/redis/redis-keys.js';
import { RedisRolloutStore } from '../../src/store/redis/redis-rollout-store.js';
import { startTestRedis, type TestRedis } from '../support/redis-server.js';
import { rolloutStoreContract } from './rollout-store-contract.js';

rolloutStoreContract('MemoryRolloutStore', () => {
  // One process: every "instance" of a test is the same store.
  let store = new MemoryRolloutStore();
  beforeEach(() => {
    store = new MemoryRolloutStore();
  });
  return { open: async () => ({ store, close: async () => undefined }) };
});

rolloutStoreContract('RedisRolloutStore', () => {
  let redis: TestRedis;
  let prefix: string;
  beforeAll(async () => {
    redis = await startTestRedis();
  });
  afterAll(() => redis?.stop());
  beforeEach(() => {
    prefix = redis.prefix();
  });
  return {
    async open() {
      const connection = new RedisConnection(redis.url, { commandTimeoutMs: 2000 });
      await connection.connect(10_000);
      const store = new RedisRolloutStore({ connection, keys: new RedisKeys(prefix), expireMs: 600_000 });
      return { store, close: () => connection.close() };
    },
  };
});
