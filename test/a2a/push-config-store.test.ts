import { afterEach, describe, expect, it } from 'vitest';
import type { A2aStore, StoredPushConfig } from '../../src/a2a/a2a-store.js';
import { MemoryA2aStore } from '../../src/store/memory/memory-a2a-store.js';
import { RedisA2aStore } from '../../src/store/redis/redis-a2a-store.js';
import type { RedisConnection } from '../../src/store/redis/redis-connection.js';
import { RedisKeys } from '../../src/store/redis/redis-keys.js';
import { eventually } from '../support/eventually.js';
import { useRedisPerTest } from '../support/redis-per-test.js';

/**
 * A task's push notification configs, held to the same answers in memory and in Redis: kept in the
 * order first stored, replaced in place by id, refused past the cap, deleted one by one, forgotten
 * after their time.
 */

const config = (id: string, extra: Partial<StoredPushConfig> = {}): StoredPushConfig => ({
  id,
  taskId: 'run_1',
  url: `https://receiver.example/${id}`,
  version: '1.0',
  ...extra,
});

function contract(name: string, open: () => Promise<A2aStore>): void {
  describe(name, () => {
    it('keeps configs in the order first stored, replacing one of the same id in place', async () => {
      const store = await open();
      expect(await store.putPushConfig(config('a'), 3, 60_000)).toBe('stored');
      expect(await store.putPushConfig(config('b', { token: 't' }), 3, 60_000)).toBe('stored');
      expect(
        await store.putPushConfig(config('a', { authentication: { scheme: 'Bearer', credentials: 'c' } }), 3, 60_000),
      ).toBe('stored');
      expect(await store.pushConfigs('run_1')).toEqual([
        config('a', { authentication: { scheme: 'Bearer', credentials: 'c' } }),
        config('b', { token: 't' }),
      ]);
      expect(await store.pushConfigs('run_2')).toEqual([]);
    });

    it('refuses a new config past the cap, but not a replacement, and makes room when one is deleted', async () => {
      const store = await open();
      await store.putPushConfig(config('a'), 2, 60_000);
      await store.putPushConfig(config('b'), 2, 60_000);
      expect(await store.putPushConfig(config('c'), 2, 60_000)).toBe('full');
      expect(await store.putPushConfig(config('b', { token: 'new' }), 2, 60_000)).toBe('stored');
      expect(await store.deletePushConfig('run_1', 'a')).toBe(true);
      expect(await store.deletePushConfig('run_1', 'a')).toBe(false);
      expect(await store.putPushConfig(config('c'), 2, 60_000)).toBe('stored');
      expect((await store.pushConfigs('run_1')).map(({ id }) => id)).toEqual(['b', 'c']);
    });

    it('forgets configs after their time', async () => {
      const store = await open();
      await store.putPushConfig(config('a'), 2, 50);
      await eventually(async () => (await store.pushConfigs('run_1')).length === 0, 'the configs forgotten');
    });
  });
}

contract('in memory', async () => new MemoryA2aStore());

describe('in Redis', () => {
  const redis = useRedisPerTest();
  const connections: RedisConnection[] = [];
  afterEach(async () => {
    for (const connection of connections.splice(0)) await connection.close();
  });
  contract('the Redis store', async () => {
    const connection = await redis.connect();
    connections.push(connection);
    return new RedisA2aStore(connection, new RedisKeys(redis.prefix));
  });
});
