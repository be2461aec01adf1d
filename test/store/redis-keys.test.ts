import { describe, expect, it } from 'vitest';
import { KEY_LAYOUT, luaKeyFunctions, RedisKeys } from '../../src/store/redis/redis-keys.js';
import { useRedisPerTest } from '../support/redis-per-test.js';

/** Keys whose varying part is a digest of the caller's text, which {@link RedisKeys} hashes itself. */
const HASHED = new Set(['idempotency', 'rolloutIdempotency']);

/**
 * The key layout is written once (`KEY_LAYOUT`): the TypeScript side and the Lua scripts name every key
 * of it alike under a prefix, so a script and the code around it always meet on the same keys.
 */
describe('RedisKeys and the Lua scripts', () => {
  const redis = useRedisPerTest();

  it('name every key of the layout alike, and hash the idempotency keys to a part of fixed length', async () => {
    const connection = await redis.connect();
    const inLua = async (call: string, part = '') =>
      (await connection.command.eval(
        `local p = ARGV[1]\n${luaKeyFunctions('p')}\nreturn ${call}`,
        0,
        redis.prefix,
        part,
      )) as string;
    try {
      const keys = new RedisKeys(redis.prefix);
      const named = keys as unknown as Record<string, (...parts: string[]) => string>;
      for (const [name, { key }] of Object.entries(KEY_LAYOUT)) {
        if (!key.includes('{')) {
          expect(keys.fixed(name as never), name).toBe(await inLua(`K.${name}`));
        } else if (HASHED.has(name)) {
          const hashed = named[name]!('owner-1', `caller's key ${'x'.repeat(10_000)}`);
          const digest = hashed.slice((await inLua(`K.${name}(ARGV[2])`)).length);
          expect(digest, name).toMatch(/^[\w-]{43}$/);
          expect(hashed, name).toBe(await inLua(`K.${name}(ARGV[2])`, digest));
        } else {
          expect(typeof named[name], name).toBe('function');
          expect(named[name]!('part-7'), name).toBe(await inLua(`K.${name}(ARGV[2])`, 'part-7'));
        }
      }
    } finally {
      await connection.close();
    }
  });
});
