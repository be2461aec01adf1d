import { describe, expect, it } from 'vitest';
import { OrsError } from '../../src/errors.js';
import type { OrsClient } from '../../src/ors/client/ors-client.js';
import { EnvCatalog, type EnvironmentSource } from '../../src/runs/env-catalog.js';

/** An ORS client whose discovery calls answer only when their signal aborts, as a server that hangs. */
function hangingOrs(): { ors: OrsClient; calls: () => number } {
  let calls = 0;
  const hang = (signal?: AbortSignal) =>
    new Promise<never>((_resolve, reject) => {
      calls++;
      signal?.addEventListener('abort', () => reject(signal.reason), { once: true });
    });
  return { ors: { listEnvironments: hang } as unknown as OrsClient, calls: () => calls };
}

describe('the environment catalog', () => {
  it('gives up on an ORS server that does not answer after its own time limit, with ors_unavailable, and asks again next time', async () => {
    const { ors, calls } = hangingOrs();
    const catalog = new EnvCatalog(ors, { timeoutMs: 50 });
    const first = catalog.resolve('arith', undefined);
    const second = catalog.resolve('arith', undefined);
    await expect(first).rejects.toSatisfy(
      (error) => error instanceof OrsError && error.code === 'ors_unavailable' && /within 0.05 s/.test(error.message),
    );
    await expect(second).rejects.toThrow(OrsError);
    // Both requests waited on one lookup; the failure is not cached.
    expect(calls()).toBe(1);
    await expect(catalog.resolve('arith', undefined)).rejects.toThrow(OrsError);
    expect(calls()).toBe(2);
  });
});

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
    taskSchema: (env, signal) => answer(`schema ${env}`, undefined, signal),
    tools: (env, signal) => answer(`tools ${env}`, [], signal),
  };
  return { source, calls };
}

describe('the environment catalog, listing', () => {
  it('lists each environment with its splits and task counts, shared by concurrent callers and kept for its ttl', async () => {
    let now = 1_000;
    const { source, calls } = countingSource();
    const directory = new EnvCatalog(source, { ttlMs: 100, now: () => now });
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
    const directory = new EnvCatalog(source);
    await expect(directory.list()).rejects.toThrow('the ORS server is down');
    await expect(directory.list()).rejects.toThrow(OrsError);
    expect(calls).toEqual(['list', 'list']);
  });

  it('gives up on an ORS server that does not answer within its time limit, with ors_unavailable', async () => {
    const { source } = countingSource({ hang: true });
    const directory = new EnvCatalog(source, { timeoutMs: 50 });
    await expect(directory.list()).rejects.toSatisfy(
      (error) => error instanceof OrsError && error.code === 'ors_unavailable' && /within 0.05 s/.test(error.message),
    );
  });
});
