import type { Logger } from './logger.js';
import type { ObservedRun, RunOutcome } from './run-observer.js';

/** Writes a run's one `run ended` line (docs/operations.md#logs) on `log`, a logger of that run: `warn` when it failed. */
export function logRunEnd(log: Logger, run: ObservedRun, outcome: RunOutcome, durationMs: number | undefined): void {
  const fields = {
    env: run.env,
    model: run.model,
    status: outcome.status,
    turns: outcome.turns,
    reward: outcome.reward,
    ...(durationMs === undefined ? {} : { duration_ms: durationMs }),
    ...(outcome.errorCode === undefined ? {} : { code: outcome.errorCode }),
    ...(outcome.reason === undefined ? {} : { reason: outcome.reason }),
  };
  if (outcome.status === 'failed') log.warn(fields, 'run ended');
  else log.info(fields, 'run ended');
}
