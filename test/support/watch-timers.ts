import { createHook } from 'node:async_hooks';
import { onTestFinished } from 'vitest';

/** The watched timers that have neither fired nor been cleared. */
export interface WatchedTimers {
  pending(): Promise<number>;
}

/**
 * Watches the timers created from now until the test ends whose delay `ofDelay` accepts.
 *
 * Counting `process.getActiveResourcesInfo()` before and after instead counts every timer of the
 * worker: one of vitest's or of an earlier test that fires in between makes the count drop and the
 * test fail (it did, once, in CI). Tests give the code they watch a distinctive delay, so the delay
 * picks its timers out.
 */
export function watchTimers(ofDelay: (delayMs: number) => boolean): WatchedTimers {
  const live = new Set<number>();
  const hook = createHook({
    init(asyncId, type, _trigger, resource) {
      // `_idleTimeout` is the delay Node gave the Timeout; it is set before the init hook runs.
      if (type === 'Timeout' && ofDelay((resource as { _idleTimeout: number })._idleTimeout)) live.add(asyncId);
    },
    destroy(asyncId) {
      live.delete(asyncId);
    },
  }).enable();
  onTestFinished(() => void hook.disable());
  return {
    // Node reports a cleared timer's destroy at the next check phase, so wait for it first.
    pending: () => new Promise((resolve) => setImmediate(() => resolve(live.size))),
  };
}
