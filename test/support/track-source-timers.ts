/** A timer created by code under `src/`, and whether it has fired or been cleared since. */
interface TrackedTimer {
  handle: unknown;
  site: string;
  settled: boolean;
  repeating: boolean;
}

/** See {@link trackSourceTimers}. */
export interface SourceTimerTracker {
  /** Call sites (`file:line`) of `src/` timers that are still armed: neither fired (one-shot) nor cleared. */
  pending(): string[];
  /** Puts the real timer functions back. */
  restore(): void;
}

/**
 * Wraps the global `setTimeout`/`setInterval`/`clear*` so that timers created directly by code in
 * `src/` are tracked. After the code under test is done, `pending()` must be empty: an armed timer
 * is work nobody owns any more (and one that keeps the process alive).
 */
export function trackSourceTimers(): SourceTimerTracker {
  const real = {
    setTimeout: globalThis.setTimeout,
    setInterval: globalThis.setInterval,
    clearTimeout: globalThis.clearTimeout,
    clearInterval: globalThis.clearInterval,
  };
  const timers: TrackedTimer[] = [];
  const callSite = (): string | undefined => {
    const frames = (new Error().stack ?? '').split('\n').slice(1);
    const caller = frames.find((frame) => !frame.includes('track-source-timers') && !frame.includes('node:'));
    const match = caller === undefined ? null : /\/src\/[^\s)]+/.exec(caller);
    return match?.[0];
  };
  const wrap = (repeating: boolean, create: (callback: () => void, ms?: number) => unknown) =>
    ((callback: (...args: unknown[]) => void, ms?: number, ...args: unknown[]) => {
      const site = callSite();
      if (site === undefined) return create(() => callback(...args), ms);
      const timer: TrackedTimer = { handle: undefined, site, settled: false, repeating };
      timer.handle = create(() => {
        if (!repeating) timer.settled = true;
        callback(...args);
      }, ms);
      timers.push(timer);
      return timer.handle;
    }) as unknown;
  const clear = (original: (handle: never) => void) =>
    ((handle: unknown) => {
      for (const timer of timers) if (timer.handle === handle) timer.settled = true;
      original(handle as never);
    }) as unknown;
  globalThis.setTimeout = wrap(false, (callback, ms) => real.setTimeout(callback, ms)) as typeof setTimeout;
  globalThis.setInterval = wrap(true, (callback, ms) => real.setInterval(callback, ms)) as typeof setInterval;
  globalThis.clearTimeout = clear(real.clearTimeout) as typeof clearTimeout;
  globalThis.clearInterval = clear(real.clearInterval) as typeof clearInterval;
  return {
    pending: () => timers.filter((timer) => !timer.settled).map((timer) => timer.site),
    restore: () => Object.assign(globalThis, real),
  };
}
