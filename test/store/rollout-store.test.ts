import { beforeEach } from 'vitest';
import { MemoryRolloutStore } from '../../src/store/memory/memory-rollout-store.js';
import { RedisKeys } from '../../src/store/redis/redis-keys.js';
import { RedisRolloutStore } from '../../src/store/redis/redis-rollout-store.js';
import { useRedisPerTest } from '../support/redis-per-test.js';
import { rolloutStoreContract } from './rollout-store-contract.js';

rolloutStoreContract('MemoryRolloutStore', () => {
  // One process: every "instance" of a test is the same store.
  let store = new MemoryRolloutStore();
  beforeEach(() => {
    store = new MemoryRolloutStore();
  });
  return {
    open: async (limits) => ({
      store: limits ? new MemoryRolloutStore({ limits }) : store,
      close: async () => undefined,
    }),
  };
});

rolloutStoreContract('RedisRolloutStore', () => {
  const redis = useRedisPerTest();
  return {
    async open(limits) {
      const connection = await redis.connect();
      const store = new RedisRolloutStore({
        connection,
        keys: new RedisKeys(redis.prefix),
        expireMs: 600_000,
        ...(limits === undefined ? {} : { limits }),
      });
      return { store, close: () => connection.close() };
    },
  };
});
