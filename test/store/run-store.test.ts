import { randomBytes } from 'node:crypto';
import { beforeEach } from 'vitest';
import { MemoryRunStore } from '../../src/store/memory/memory-run-store.js';
import { RedisRunStore } from '../../src/store/redis/redis-run-store.js';
import { SealedSecrets } from '../../src/store/redis/sealed-secrets.js';
import { useRedisPerTest } from '../support/redis-per-test.js';
import { runStoreContract, type StoreKind } from './run-store-contract.js';
import { runStreamsContract } from './run-streams-contract.js';

/** The memory store: one instance per test, of its own. */
function memory(): StoreKind {
  return {
    shared: false,
    async open({ limits, now }) {
      const store = new MemoryRunStore(limits, now);
      return { store, streams: store.streams };
    },
  };
}

/** The Redis store: every test on keys of its own; the instances of one test share them, and one secret. */
function redis(): StoreKind {
  const server = useRedisPerTest();
  let secrets: SealedSecrets;
  let instances = 0;
  beforeEach(() => {
    secrets = new SealedSecrets(randomBytes(32));
  });
  return {
    shared: true,
    async open({ limits, now }) {
      const store = new RedisRunStore({
        connection: await server.connect(),
        prefix: server.prefix,
        instance: `i_test${++instances}`,
        limits,
        // Longer than any test: no instance is taken for lost (test/multi-instance/instance-loss.test.ts covers that).
        leaseMs: 600_000,
        queuePollMs: 200,
        secrets,
        now,
      });
      return { store, streams: store.streams };
    },
  };
}

// Each port's one suite, run against both stores.
runStoreContract('MemoryRunStore', memory);
runStreamsContract('MemoryRunStore', memory);
runStoreContract('RedisRunStore', redis);
runStreamsContract('RedisRunStore', redis);
