import type { RunEventInput, RunEventOf } from '../protocol/run-events.js';

/** The call a `tool.progress` reports on: the fields it shares with its `tool.started`. */
export type ProgressingCall = Pick<RunEventOf<'tool.progress'>, 'tool' | 'tool_call_id' | 'turn' | 'call_index'>;

/** How {@link withToolProgress} reports on a running tool call. */
export interface ToolProgressOptions {
  /** Period between reports in milliseconds; undefined sends none (rollouts need none). */
  periodMs: number | undefined;
  now: () => number;
  emit: (event: RunEventInput) => void;
  call: ProgressingCall;
}

/**
 * Runs `work` (one tool call) and emits `tool.progress` with the seconds elapsed every period until
 * it settles, so a subscriber sees a long call live (docs/protocol.md §10) and its stream has activity. The
 * timer is cleared however `work` ends. An emit that throws (the event log is full) stops the
 * reports and is otherwise ignored: the run's next event meets the same refusal and ends the run.
 */
export async function withToolProgress<T>(options: ToolProgressOptions, work: () => Promise<T>): Promise<T> {
  const { periodMs, now, emit, call } = options;
  if (periodMs === undefined) return work();
  const started = now();
  const timer = setInterval(() => {
    try {
      emit({ event: 'tool.progress', ...call, elapsed: Math.round(now() - started) / 1000 });
    } catch {
      clearInterval(timer);
    }
  }, periodMs);
  try {
    return await work();
  } finally {
    clearInterval(timer);
  }
}
