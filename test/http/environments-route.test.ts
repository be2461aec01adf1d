import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { builtinEnvironments } from '../../adapters/environments/builtin-environments.js';
import { OrsError } from '../../src/errors.js';
import { EnvironmentDirectory, type EnvironmentSource } from '../../src/http/environment-directory.js';
import { startTestBridge, type TestBridge } from '../support/start-test-bridge.js';
import { unusedPort } from '../support/unused-port.js';

/** An ORS source with one environment of one split, counting its calls; `hang` makes every call wait for its signal. */
function countingSource(options: { hang?: boolean; fail?: boolean } = {}) {
  const calls: string[] = [];
  const answer = <T>(name: string, value: T, signal?: AbortSignal): Promise<T> => {
    calls.push(name);
    if (options.fail) return Promise.reject(new OrsError('the ORS server is down', { code: 'ors_unavailable' }));
    if (!options.hang) return Promise.resolve(value);
    return new Promise<T>((_resolve, reject) => {
      signal?.addEventListener('abort', () => reject(signal.reason), { once: true });
    });
  };
  const source: EnvironmentSource = {
    listEnvironments: (signal) => answer('list', ['quiz'], signal),
    splits: (env, signal) => answer(`splits ${env}`, [{ name: 'dev', type: 'validation' as const }], signal),
    numTasks: (env, split, signal) => answer(`count ${env}/${split}`, 7, signal),
  };
  return { source, calls };
}

describe('the environment directory', () => {
  it('lists each environment with its splits and task counts, shared by concurrent callers and kept for its ttl', async () => {
    let now = 1_000;
    const { source, calls } = countingSource();
    const directory = new EnvironmentDirectory(source, { ttlMs: 100, now: () => now });
    const [first, second] = await Promise.all([directory.list(), directory.list()]);
    expect(first).toEqual([{ id: 'quiz', splits: [{ name: 'dev', type: 'validation', tasks: 7 }] }]);
    expect(second).toEqual(first);
    expect(calls).toEqual(['list', 'splits quiz', 'count quiz/dev']);
    now += 99;
    await directory.list();
    expect(calls).toHaveLength(3);
    now += 1;
    await directory.list();
    expect(calls).toHaveLength(6);
  });

  it('does not keep a failed listing: the next caller asks the ORS server again', async () => {
    const { source, calls } = countingSource({ fail: true });
    const directory = new EnvironmentDirectory(source);
    await expect(directory.list()).rejects.toThrow('the ORS server is down');
    await expect(directory.list()).rejects.toThrow(OrsError);
    expect(calls).toEqual(['list', 'list']);
  });

  it('gives up on an ORS server that does not answer within its time limit, with ors_unavailable', async () => {
    const { source } = countingSource({ hang: true });
    const directory = new EnvironmentDirectory(source, { timeoutMs: 50 });
    await expect(directory.list()).rejects.toSatisfy(
      (error) => error instanceof OrsError && error.code === 'ors_unavailable' && /within 0.05 s/.test(error.message),
    );
  });
});

describe('GET /v1/environments', () => {
  let bridge: TestBridge;
  let keyed: TestBridge;

  beforeAll(async () => {
    bridge = await startTestBridge({ RUNBRIDGE_DEFAULT_ENV: 'workspace' });
    keyed = await startTestBridge({ RUNBRIDGE_API_KEYS: 'env-key' }, { apiKey: 'env-key' });
  });
  afterAll(async () => {
    await bridge?.shutdown();
    await keyed?.shutdown();
  });

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
    const down = await startTestBridge({ ORS_URL: `http://127.0.0.1:${await unusedPort()}` });
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
