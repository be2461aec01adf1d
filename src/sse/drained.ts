import type { ServerResponse } from 'node:http';
import type { StopSignal } from './stop-signal.js';

/**
 * Resolves when `res` drains or closes, after `limitMs`, when `signal` aborts, or when `until`
 * resolves, whichever comes first. Plain listeners rather than `events.once` with a joined signal:
 * this runs once per replayed batch, and the `AbortController` and `AbortSignal.any` per call showed
 * in the replay profile.
 */
export function drained(
  res: ServerResponse,
  limitMs: number,
  signal: StopSignal,
  until?: Promise<void>,
): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      res.off('drain', done);
      res.off('close', done);
      signal.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, limitMs);
    res.once('drain', done);
    res.once('close', done);
    signal.addEventListener('abort', done, { once: true });
    void until?.then(done);
  });
}
