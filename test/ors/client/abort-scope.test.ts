import { describe, expect, it } from 'vitest';
import { AbortScope } from '../../../src/ors/client/abort-scope.js';
import { trackSourceTimers } from '../../support/track-source-timers.js';

describe('AbortScope', () => {
  it('aborts with the reason of the parent that aborted, and says it did not time out', () => {
    const first = new AbortController();
    const second = new AbortController();
    const scope = new AbortScope([first.signal, undefined, second.signal], 600_000);
    second.abort('second went');
    expect(scope.signal.reason).toBe('second went');
    expect(scope.timedOut).toBe(false);
    expect(() => scope.throwIfParentAborted()).toThrow('second went');
    scope.dispose();
  });

  it('starts aborted when a parent already is', () => {
    const scope = new AbortScope([AbortSignal.abort('early')], 600_000);
    expect(scope.signal.aborted).toBe(true);
    expect(scope.signal.reason).toBe('early');
    scope.dispose();
  });

  it('times out when nothing touches it, and touch() restarts the clock', async () => {
    const scope = new AbortScope([], 20);
    scope.touch();
    await new Promise((resolve) => scope.signal.addEventListener('abort', resolve, { once: true }));
    expect(scope.timedOut).toBe(true);
    expect(scope.signal.reason).toMatchObject({ name: 'TimeoutError' });
    expect(() => scope.throwIfParentAborted()).not.toThrow();
    scope.dispose();
  });

  it('clears its timer and ignores its parents once disposed', () => {
    const timers = trackSourceTimers();
    try {
      const parent = new AbortController();
      const scope = new AbortScope([parent.signal], 600_000);
      expect(timers.pending()).toHaveLength(1);
      scope.dispose();
      expect(timers.pending()).toEqual([]);
      parent.abort('late');
      expect(scope.signal.aborted).toBe(false);
    } finally {
      timers.restore();
    }
  });
});
