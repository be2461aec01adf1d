import { waitForAppend } from '../runs/log-reader.js';
import type { OpenedRun } from '../runs/run-store.js';
import { StoreUnavailableError } from '../runs/store-unavailable-error.js';
import type { StopSignal } from '../sse/stop-signal.js';
import { isTerminalState, type TaskState } from './a2a-schemas.js';
import { type TaskFrameContext, taskEventsOf } from './task-events.js';

/** The state the status updates of the events after `after` up to `to` leave the task in; undefined without any. */
export function stateAfter(ctx: TaskFrameContext, after: number, to: number): TaskState | undefined {
  let state: TaskState | undefined;
  for (let seq = after + 1; seq <= to && seq < ctx.log.length; seq++) {
    for (const update of taskEventsOf(ctx.log[seq]!, ctx)) {
      if ('statusUpdate' in update) state = update.statusUpdate.status.state;
    }
  }
  return state;
}

/** True for the states a blocking send returns at: the terminal ones, and the task waiting on its caller. */
export function isSettledState(state: TaskState | undefined): boolean {
  return (
    state !== undefined &&
    (isTerminalState(state) || state === 'TASK_STATE_INPUT_REQUIRED' || state === 'TASK_STATE_AUTH_REQUIRED')
  );
}

/**
 * Waits until the events after `after` leave the task terminal or waiting on its caller (A2A v1.0
 * §3.2.2: a blocking send returns then), or `signal` aborts (the caller went away: the run goes on).
 * Only events after `after` count, so a message to a task that waits returns at its next wait, not
 * at the one it answered. The wait counts as a subscriber, so the run is never swept as an orphan.
 */
export async function waitUntilSettled(
  run: OpenedRun,
  ctx: TaskFrameContext,
  after: number,
  runs: { watch(id: string): () => void },
  options: { signal: StopSignal; wakeMs: number },
): Promise<void> {
  const { log } = run;
  const detach = runs.watch(run.record.id);
  try {
    let state: TaskState | undefined;
    let seen = after;
    for (;;) {
      const last = log.lastSeq;
      state = stateAfter({ ...ctx, log: log.entries }, seen, last) ?? state;
      seen = Math.max(seen, last);
      if (isSettledState(state) || log.terminal) return;
      const woke = await waitForAppend(log, log.length, options.wakeMs, options.signal);
      if (woke === 'aborted') return;
      if (woke === 'interrupted') throw new StoreUnavailableError();
    }
  } finally {
    detach();
  }
}
