import { randomBytes } from 'node:crypto';
import { beforeEach } from 'vitest';
import { MemoryRunStore } from '../../src/store/memory/memory-run-store.js';
import { RedisRunStore } from '../../src/store/redis/redis-run-store.js';
import { SealedSecrets } from '../../src/store/redis/sealed-secrets.js';
import { useRedisPerTest } from '../support/redis-per-test.js';
import { runStoreContract } from './run-store-contract.js';

runStoreContract('MemoryRunStore', () => ({
  shared: false,
  open: async ({ limits, now }) => new MemoryRunStore(limits, now),
}));

runStoreContract('RedisRunStore', () => {
  // Every test on keys of its own; the instances of one test share them, and one secret.
  const redis = useRedisPerTest();
  let secrets: SealedSecrets;
  let instances = 0;
  beforeEach(() => {
    secrets = new SealedSecrets(randomBytes(32));
  });
  return {
    shared: true,
    async open({ limits, now }) {
      const connection = await redis.connect();
      return new RedisRunStore({
        connection,
        prefix: redis.prefix,
        instance: `i_test${++instances}`,
        limits,
        // Longer than any test: no instance is taken for lost (test/multi-instance/instance-loss.test.ts covers that).
        leaseMs: 600_000,
        queuePollMs: 200,
        secrets,
        now,
      });
    },
  };
});
