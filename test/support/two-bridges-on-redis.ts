import { afterAll, beforeAll } from 'vitest';
import { startTestRedis, type TestRedis } from './redis-server.js';
import { startTestBridge, type TestBridge } from './start-test-bridge.js';

/**
 * Two bridges in the test process on one Redis of their own — two instances of one deployment, A and
 * B — read once the `beforeAll` of {@link useTwoBridgesOnRedis} started them.
 */
export interface TwoBridgesOnRedis {
  readonly redis: TestRedis;
  /** The key prefix both instances use in Redis. */
  readonly prefix: string;
  readonly a: TestBridge;
  readonly b: TestBridge;
}

/**
 * Starts a Redis and two bridges on it (A first: it writes the shared secret B reads) before the tests
 * of the enclosing `describe` or file, and stops them after: Redis thawed (a test may have frozen it),
 * both bridges shut down, Redis stopped. Both get `env` and `options` as {@link startTestBridge} takes
 * them, with Redis's URL and a prefix of their own; B gets `bEnv` on top.
 */
export function useTwoBridgesOnRedis(
  env: Record<string, string>,
  options: Parameters<typeof startTestBridge>[1] = {},
  bEnv: Record<string, string> = {},
): TwoBridgesOnRedis {
  let started: { redis: TestRedis; prefix: string; a?: TestBridge; b?: TestBridge } | undefined;
  const part = <K extends 'redis' | 'prefix' | 'a' | 'b'>(key: K) => {
    const value = started?.[key];
    if (value === undefined) throw new Error(`${key} is read before the beforeAll of useTwoBridgesOnRedis started it`);
    return value as NonNullable<NonNullable<typeof started>[K]>;
  };
  beforeAll(async () => {
    const redis = await startTestRedis();
    started = { redis, prefix: redis.prefix() };
    const shared = { ...env, RUNBRIDGE_REDIS_URL: redis.url, RUNBRIDGE_REDIS_PREFIX: started.prefix };
    started.a = await startTestBridge(shared, options);
    started.b = await startTestBridge({ ...shared, ...bEnv }, options);
  });
  afterAll(async () => {
    started?.redis.thaw();
    await started?.a?.shutdown();
    await started?.b?.shutdown();
    await started?.redis.stop();
  });
  return {
    get redis() {
      return part('redis');
    },
    get prefix() {
      return part('prefix');
    },
    get a() {
      return part('a');
    },
    get b() {
      return part('b');
    },
  };
}
