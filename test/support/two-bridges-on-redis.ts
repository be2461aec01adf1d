import { startTestRedis, type TestRedis } from './redis-server.js';
import { startTestBridge, type TestBridge } from './start-test-bridge.js';
import { useStarted } from './use-started.js';

/** Two bridges in the test process on one Redis of their own: two instances of one deployment, A and B. */
export interface TwoBridgesOnRedis {
  redis: TestRedis;
  /** The key prefix both instances use in Redis. */
  prefix: string;
  a: TestBridge;
  b: TestBridge;
  /** Thaws Redis (a test may have frozen it), shuts both bridges down and stops Redis. */
  stop(): Promise<void>;
}

/**
 * Starts a Redis and two bridges on it, A first (it writes the shared secret B reads). Both get `env`
 * and `options` as {@link startTestBridge} takes them, with Redis's URL and a prefix of their own; B
 * gets `bEnv` on top. What started is stopped again when a later part fails to start.
 */
export async function startTwoBridgesOnRedis(
  env: Record<string, string>,
  options: Parameters<typeof startTestBridge>[1] = {},
  bEnv: Record<string, string> = {},
): Promise<TwoBridgesOnRedis> {
  const redis = await startTestRedis();
  const prefix = redis.prefix();
  const bridges: TestBridge[] = [];
  const stop = async () => {
    redis.thaw();
    for (const bridge of bridges) await bridge.shutdown();
    await redis.stop();
  };
  try {
    const shared = { ...env, RUNBRIDGE_REDIS_URL: redis.url, RUNBRIDGE_REDIS_PREFIX: prefix };
    bridges.push(await startTestBridge(shared, options));
    bridges.push(await startTestBridge({ ...shared, ...bEnv }, options));
  } catch (error) {
    await stop();
    throw error;
  }
  return { redis, prefix, a: bridges[0]!, b: bridges[1]!, stop };
}

/**
 * {@link startTwoBridgesOnRedis} before the tests of the enclosing `describe` (or file), stopped after
 * them; what it returns stands for the two ({@link useStarted}).
 */
export function useTwoBridgesOnRedis(...args: Parameters<typeof startTwoBridgesOnRedis>): TwoBridgesOnRedis {
  return useStarted(
    'the two bridges on Redis',
    () => startTwoBridgesOnRedis(...args),
    (two) => two.stop(),
  );
}
