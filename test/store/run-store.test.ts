import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, beforeEach } from 'vitest';
import { MemoryRunStore } from '../../src/store/memory/memory-run-store.js';
import { RedisConnection } from '../../src/store/redis/redis-connection.js';
import { RedisRunStore } from '../../src/store/redis/redis-run-store.js';
import { SealedSecrets } from '../../src/store/redis/sealed-secrets.js';
import { startTestRedis, type TestRedis } from '../support/redis-server.js';
import { runStoreContract } from './run-store-contract.js';

runStoreContract('MemoryRunStore', () => ({
  shared: false,
  open: async ({ limits, now }) => new MemoryRunStore(limits, now),
}));

runStoreContract('RedisRunStore', () => {
  let redis: TestRedis;
  let prefix: string;
  let secrets: SealedSecrets;
  let instances = 0;
  beforeAll(async () => {
    redis = await startTestRedis();
  });
  afterAll(() => redis?.stop());
  // Every test on keys of its own; the instances of one test share them, and one secret.
  beforeEach(() => {
    prefix = redis.prefix();
    secrets = new SealedSecrets(randomBytes(32));
  });
  return {
    shared: true,
    async open({ limits, now }) {
      const connection = new RedisConnection(redis.url, { commandTimeoutMs: 2000 });
      await connection.connect(10_000);
      return new RedisRunStore({
        connection,
        prefix,
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
