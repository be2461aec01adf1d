import { describe, expect, it } from 'vitest';
import { OrsError } from '../../src/errors.js';
import type { OrsClient } from '../../src/ors/client/ors-client.js';
import { EnvCatalog } from '../../src/runs/env-catalog.js';

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
    const catalog = new EnvCatalog(ors, Date.now, 50);
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
