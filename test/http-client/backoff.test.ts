import { describe, expect, it } from 'vitest';
import { backoffDelayMs, parseRetryAfterMs, sleep } from '../../src/http-client/backoff.js';
import { trackSourceTimers } from '../support/track-source-timers.js';

const policy = { retries: 4, baseDelayMs: 200, maxDelayMs: 5_000 };

describe('backoffDelayMs', () => {
  it('draws up to base * 2^attempt, capped at maxDelayMs', () => {
    expect(backoffDelayMs(0, policy, 0, () => 0.999)).toBe(199);
    expect(backoffDelayMs(3, policy, 0, () => 0.5)).toBe(800);
    expect(backoffDelayMs(10, policy, 0, () => 0.999)).toBe(4_995);
    expect(backoffDelayMs(2, policy, 0, () => 0)).toBe(0);
  });

  it('waits at least as long as Retry-After asks, but never past maxDelayMs', () => {
    expect(backoffDelayMs(0, policy, 1_000, () => 0)).toBe(1_000);
    expect(backoffDelayMs(0, policy, 60_000, () => 0)).toBe(5_000);
  });
});

describe('parseRetryAfterMs', () => {
  it('reads delta-seconds and HTTP dates, and ignores what it cannot read', () => {
    expect(parseRetryAfterMs('2')).toBe(2_000);
    expect(parseRetryAfterMs('Thu, 01 Jan 1970 00:00:10 GMT', 4_000)).toBe(6_000);
    expect(parseRetryAfterMs('soon')).toBe(0);
    expect(parseRetryAfterMs(null)).toBe(0);
  });
});

describe('sleep', () => {
  it('rejects with the abort reason at once and clears its timer', async () => {
    const timers = trackSourceTimers();
    try {
      const controller = new AbortController();
      const waiting = sleep(600_000, controller.signal);
      expect(timers.pending()).toHaveLength(1);
      const reason = new Error('stop');
      controller.abort(reason);
      await expect(waiting).rejects.toBe(reason);
      expect(timers.pending()).toEqual([]);
    } finally {
      timers.restore();
    }
  });

  it('rejects without waiting when the signal is already aborted', async () => {
    await expect(sleep(600_000, AbortSignal.abort('gone'))).rejects.toBe('gone');
  });

  it('resolves after the delay', async () => {
    await expect(sleep(1)).resolves.toBeUndefined();
  });
});
