import type { RunEvent } from '../protocol/run-events.js';
import type { StopSignal } from '../sse/stop-signal.js';
import { waitForAppend } from './log-reader.js';
import type { OpenedRun } from './run-store.js';
import { StoreUnavailableError } from './store-unavailable-error.js';

/**
 * Waits until `run` has written its terminal event and returns it, or undefined once `signal`
 * aborts first (the client went away; the run goes on); 503 when the log stops following its store. The wait counts as a subscriber, so a run
 * someone is waiting on is never swept as an orphan. `wakeMs` only bounds each wait on the log.
 */
export async function waitForTerminal(
  { record, log }: OpenedRun,
  runs: { watch(id: string): () => void },
  options: { signal: StopSignal; wakeMs: number },
): Promise<RunEvent | undefined> {
  const detach = runs.watch(record.id);
  try {
    while (!log.terminal) {
      const woke = await waitForAppend(log, log.length, options.wakeMs, options.signal);
      if (woke === 'aborted') return undefined;
      if (woke === 'interrupted') throw new StoreUnavailableError();
    }
    return log.terminal;
  } finally {
    detach();
  }
}

/** {@link waitForTerminal} for `timeoutMs` at most: the terminal event, or undefined when the time ran out first. */
export async function waitForTerminalWithin(
  run: OpenedRun,
  runs: { watch(id: string): () => void },
  timeoutMs: number,
): Promise<RunEvent | undefined> {
  if (run.log.terminal) return run.log.terminal;
  const waited = new AbortController();
  const timer = setTimeout(() => waited.abort(), timeoutMs);
  try {
    return await waitForTerminal(run, runs, { signal: waited.signal, wakeMs: timeoutMs });
  } finally {
    clearTimeout(timer);
  }
}
