import { describe, expect, it } from 'vitest';
import { builtinEnvironments } from '../../adapters/environments/builtin-environments.js';
import { startTestBridge, useTestBridge } from '../support/start-test-bridge.js';
import { unusedPort } from '../support/unused-port.js';

describe('GET /v1/environments', () => {
  const bridge = useTestBridge({ RUNBRIDGE_DEFAULT_ENV: 'workspace' });
  const keyed = useTestBridge({ RUNBRIDGE_API_KEYS: 'env-key-0123456789' }, { apiKey: 'env-key-0123456789' });

  it("lists the ORS server's environments with every split's kind and task count, and the default environment", async () => {
    const response = await bridge.fetch('/v1/environments');
    expect(response.status).toBe(200);
    // What the built-in ORS server serves, from the environments' own definitions.
    const expected = builtinEnvironments.map((environment) => ({
      id: environment.name,
      splits: environment.splits.map((split) => ({ ...split, tasks: environment.tasks.count(split.name) })),
    }));
    expect(expected.map((environment) => environment.id)).toEqual(['arith', 'workspace']);
    expect(await response.json()).toEqual({ object: 'list', default: 'workspace', data: expected });
  });

  it('wants the key when the bridge has keys', async () => {
    const anonymous = await fetch(`${keyed.url}/v1/environments`);
    expect(anonymous.status).toBe(401);
    expect(await anonymous.json()).toMatchObject({ error: { code: 'unauthorized' } });
    expect((await keyed.fetch('/v1/environments')).status).toBe(200);
  });

  it('answers 502 with the ORS error when the ORS server cannot be reached', async () => {
    // Every retry is tried, after 10 ms doubled each time rather than 200 ms.
    const down = await startTestBridge({
      ORS_URL: `http://127.0.0.1:${await unusedPort()}`,
      RUNBRIDGE_ORS_RETRY_SECONDS: '0.01',
    });
    try {
      const response = await down.fetch('/v1/environments');
      expect(response.status).toBe(502);
      const body = (await response.json()) as { error: { code: string; message: string } };
      expect(body.error.code).toBe('ors_unavailable');
      expect(body.error.message).toMatch(/127\.0\.0\.1/);
    } finally {
      await down.shutdown();
    }
  });
});
