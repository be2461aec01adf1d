import { describe, expect, it } from 'vitest';
import { RestartBackoff } from '../../src/commands/restart-backoff.js';

/** The waits of `serve --workers N` before replacing a worker that died (docs/deployment.md). */
describe('a worker restart backoff', () => {
  const policy = { firstDelayMs: 1000, maxDelayMs: 8000, stableMs: 60_000 };

  it('doubles the wait for each worker that dies soon after it started, up to the ceiling', () => {
    const backoff = new RestartBackoff(policy);
    expect([1, 2, 3, 4, 5, 6].map(() => backoff.next(500))).toEqual([1000, 2000, 4000, 8000, 8000, 8000]);
  });

  it('starts again from the first wait once a worker stayed up a while', () => {
    const backoff = new RestartBackoff(policy);
    backoff.next(500);
    backoff.next(500);
    expect(backoff.next(60_000)).toBe(1000);
    expect(backoff.next(10)).toBe(2000);
  });
});
