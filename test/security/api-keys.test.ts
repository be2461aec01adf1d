import * as crypto from 'node:crypto';
import fc from 'fast-check';
import { afterAll, afterEach, describe, expect, it, vi } from 'vitest';
import { ConfigError } from '../../src/config/index.js';
import { startTestBridge } from '../support/start-test-bridge.js';

// Counting the comparisons is the part of "constant time" a test can see: every key is compared,
// with timingSafeEqual, whichever matches and whether any does.
vi.mock('node:crypto', async (importOriginal) => {
  const actual = await importOriginal<typeof import('node:crypto')>();
  return { ...actual, timingSafeEqual: vi.fn(actual.timingSafeEqual) };
});

// The unit lane keeps modules from one file to the next (vitest.config.ts): the authenticator is
// loaded afresh, so it takes the mock, and the files after this one load theirs without it.
vi.resetModules();
const { Authenticator } = await import('../../src/http/authenticate.js');
const { UnauthorizedError } = await import('../../src/errors.js');
afterAll(() => {
  vi.doUnmock('node:crypto');
  vi.resetModules();
});

/** API keys as operators write them: visible ASCII without commas or spaces, distinct. */
const apiKey = fc.stringMatching(/^[A-Za-z0-9_\-.~+/=:]{1,64}$/);

afterEach(() => {
  vi.mocked(crypto.timingSafeEqual).mockClear();
});

describe('bearer key checks', () => {
  it('compare the presented key with every configured key in constant time, matching or not', () => {
    fc.assert(
      fc.property(fc.uniqueArray(apiKey, { minLength: 1, maxLength: 12 }), fc.oneof(apiKey, fc.nat()), (keys, pick) => {
        const authenticator = new Authenticator(keys);
        const presented = typeof pick === 'number' ? keys[pick % keys.length]! : pick;
        vi.mocked(crypto.timingSafeEqual).mockClear();
        let owner: string | undefined;
        try {
          owner = authenticator.authenticate(`Bearer ${presented}`);
        } catch (error) {
          expect(error).toBeInstanceOf(UnauthorizedError);
        }
        expect(owner !== undefined).toBe(keys.includes(presented));
        expect(vi.mocked(crypto.timingSafeEqual)).toHaveBeenCalledTimes(keys.length);
      }),
      { numRuns: 2000 },
    );
  });

  it('name each key as its own owner, stable, and never containing the key', () => {
    fc.assert(
      fc.property(
        fc.uniqueArray(
          // Long enough not to be found in an owner id (`key_` and 16 hex digits) by chance, as `key_` or `ey_0` may be.
          apiKey.filter((key) => key.length >= 8),
          { minLength: 2, maxLength: 8 },
        ),
        (keys) => {
          const authenticator = new Authenticator(keys);
          const owners = keys.map((key) => authenticator.authenticate(`Bearer ${key}`));
          expect(new Set(owners).size).toBe(keys.length);
          keys.forEach((key, index) => {
            expect(authenticator.authenticate(`bearer   ${key} `)).toBe(owners[index]);
            expect(owners[index]).not.toContain(key);
          });
        },
      ),
      { numRuns: 300 },
    );
  });

  it('refuse a key that differs from a configured one by any single character', () => {
    const authenticator = new Authenticator(['sk-live-0123456789abcdef']);
    fc.assert(
      fc.property(fc.nat(23), fc.constantFrom(...'abcdefXYZ0189-_'), (at, char) => {
        const key = 'sk-live-0123456789abcdef';
        const changed = key.slice(0, at) + char + key.slice(at + 1);
        fc.pre(changed !== key);
        expect(() => authenticator.authenticate(`Bearer ${changed}`)).toThrow(UnauthorizedError);
      }),
    );
    for (const header of [
      'Bearer sk-live-0123456789abcde',
      'Bearer sk-live-0123456789abcdeff',
      'Basic sk-live-0123456789abcdef',
      'sk-live-0123456789abcdef',
    ]) {
      expect(() => authenticator.authenticate(header), header).toThrow(UnauthorizedError);
    }
  });
});

describe('listening without keys', () => {
  it.each(['0.0.0.0', '::', '192.0.2.10', 'example.com'])('refuses HOST=%s before opening a socket', async (host) => {
    const before = process.getActiveResourcesInfo().filter((kind) => kind === 'TCPServerWrap').length;
    const starting = startTestBridge({ HOST: host });
    await expect(starting).rejects.toThrow(ConfigError);
    await expect(starting).rejects.toThrow(/RUNBRIDGE_API_KEYS/);
    expect(process.getActiveResourcesInfo().filter((kind) => kind === 'TCPServerWrap').length).toBe(before);
  });

  it.each(['127.0.0.1', 'localhost'])('listens on loopback HOST=%s', async (host) => {
    const bridge = await startTestBridge({ HOST: host });
    try {
      expect(new URL(bridge.url).hostname).toMatch(/^(127\.0\.0\.1|\[::1\])$/);
      expect((await bridge.fetch('/health')).status).toBe(200);
    } finally {
      await bridge.shutdown();
    }
  });

  it('listens beyond loopback once keys are configured, and then asks every request for one', async () => {
    const bridge = await startTestBridge({ HOST: '0.0.0.0', RUNBRIDGE_API_KEYS: 'k1-0123456789abcdef' });
    try {
      const url = bridge.url.replace('0.0.0.0', '127.0.0.1');
      expect((await fetch(`${url}/v1/runs`)).status).toBe(401);
      expect((await fetch(`${url}/v1/runs`, { headers: { Authorization: 'Bearer k1-0123456789abcdef' } })).status).toBe(
        200,
      );
    } finally {
      await bridge.shutdown();
    }
  });
});
