import type { RunEvent } from '../protocol/run-events.js';
import type { Run } from '../runs/run.js';
import { StoreUnavailableError } from '../store/store-unavailable-error.js';

/**
 * Waits until `run` has written its terminal event and returns it, or undefined once `signal`
 * aborts first (the client went away; the run goes on); 503 when the log stops following its store. The wait counts as a subscriber, so a run
 * someone is waiting on is never swept as an orphan. `wakeMs` only bounds each wait on the log.
 */
export async function waitForTerminal(
  run: Run,
  options: { signal: AbortSignal; now: () => number; wakeMs: number },
): Promise<RunEvent | undefined> {
  const detach = run.attach(options.now);
  try {
    while (!run.log.terminal) {
      const woke = await run.log.waitForAppend(run.log.length, options.wakeMs, options.signal);
      if (woke === 'aborted') return undefined;
      if (woke === 'interrupted') throw new StoreUnavailableError();
    }
    return run.log.terminal;
  } finally {
    detach();
  }
}
