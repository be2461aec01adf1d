import { afterAll, beforeAll, beforeEach } from 'vitest';
import { RedisConnection } from '../../src/store/redis/redis-connection.js';
import { startTestRedis, type TestRedis } from './redis-server.js';

/** A Redis of the file's own, with fresh keys for each test. */
export interface RedisPerTest {
  /** The current test's key prefix: what it opens on shares these keys, no other test's. */
  readonly prefix: string;
  /** A new connection to the file's Redis, connected; the caller closes it. */
  connect(): Promise<RedisConnection>;
}

/**
 * Starts a `redis-server` before a file's tests and stops it after them, and gives each test a key
 * prefix of its own: the set-up of every store contract run on Redis (runs, rollouts, webhooks).
 * Call it at the top of a `describe` body or a contract's harness.
 */
export function useRedisPerTest(): RedisPerTest {
  let redis: TestRedis | undefined;
  let prefix = '';
  beforeAll(async () => {
    redis = await startTestRedis();
  });
  afterAll(() => redis?.stop());
  beforeEach(() => {
    prefix = redis!.prefix();
  });
  return {
    get prefix() {
      return prefix;
    },
    async connect() {
      const connection = new RedisConnection(redis!.url, { commandTimeoutMs: 2000 });
      await connection.connect(10_000);
      return connection;
    },
  };
}
