import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually } from '../support/eventually.js';
import { startTestRedis, type TestRedis } from '../support/redis-server.js';
import { startTestBridge, type TestBridge } from '../support/start-test-bridge.js';

/**
 * A Redis that answers but refuses writes — out of memory under `noeviction` (docs/deployment.md) — is a
 * store that cannot serve, not a bug of the bridge: `POST /v1/runs` answers 503 `store_unavailable` with
 * `Retry-After` naming the refusal, `/health` and `/ready` say why, and all of it clears once Redis takes
 * writes again.
 */
describe('a Redis that refuses writes (out of memory, noeviction)', () => {
  let redis: TestRedis;
  let bridge: TestBridge;
  let admin: Redis;
  beforeAll(async () => {
    redis = await startTestRedis();
    bridge = await startTestBridge({
      RUNBRIDGE_REDIS_URL: redis.url,
      RUNBRIDGE_REDIS_PREFIX: redis.prefix(),
      RUNBRIDGE_SHUTDOWN_GRACE_SECONDS: '1',
    });
    admin = new Redis(redis.url);
    await admin.config('SET', 'maxmemory-policy', 'noeviction');
  });
  afterAll(async () => {
    await admin?.config('SET', 'maxmemory', '0');
    admin?.disconnect();
    await bridge?.shutdown();
    await redis?.stop();
  });

  it('answers 503 store_unavailable with Retry-After, says why on /health and /ready, and recovers', async () => {
    // One byte: whatever Redis holds is over it, so it refuses every command that may grow memory.
    await admin.config('SET', 'maxmemory', '1');

    for (let attempt = 0; attempt < 5; attempt++) {
      const created = await bridge.fetch('/v1/runs', {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: '{}',
      });
      expect(created.status).toBe(503);
      expect(created.headers.get('retry-after')).toBe('2');
      const { error } = (await created.json()) as { error: { code: string; message: string } };
      expect(error.code).toBe('store_unavailable');
      expect(error.message).toMatch(/refuses writes.*OOM/);
    }

    const health = await bridge.fetch('/health');
    expect(health.status).toBe(503);
    expect(health.headers.get('retry-after')).toBe('2');
    const healthError = ((await health.json()) as { error: { code: string; message: string } }).error;
    expect(healthError.code).toBe('store_unavailable');
    expect(healthError.message).toMatch(/refuses writes.*OOM/);

    const ready = await bridge.fetch('/ready');
    expect(ready.status).toBe(503);
    const readyError = ((await ready.json()) as { error: { code: string; details: string[] } }).error;
    expect(readyError.code).toBe('not_ready');
    expect(readyError.details.join('\n')).toMatch(/store.*refuses writes.*OOM/);

    await admin.config('SET', 'maxmemory', '0');
    await eventually(async () => (await bridge.fetch('/health')).status === 200, '/health to be ok again');
    expect((await bridge.fetch('/ready')).status).toBe(200);
    const runId = await bridge.startRun({});
    expect(runId).toMatch(/^run_/);
  });
});
