import type { RunOutcome } from '../telemetry/run-observer.js';
import type { EventLog } from './event-log.js';

/**
 * How the run of `log` ended, as its end line, its counters and its span tell it: read off its log,
 * which holds its terminal event — wherever it was played, so the instance that ended a lost
 * instance's run tells its end as the one that played it would.
 */
export function outcomeOf(log: EventLog): RunOutcome {
  const { summary, terminal, entries } = log;
  const started = entries[0]?.event.timestamp;
  const outcome = {
    turns: summary.turns,
    reward: summary.reward,
    inputTokens: summary.usage.input_tokens,
    outputTokens: summary.usage.output_tokens,
    ...(started === undefined || terminal === undefined
      ? {}
      : { durationMs: Math.round((terminal.timestamp - started) * 1000) }),
  };
  switch (terminal?.event) {
    case 'run.completed':
      return { ...outcome, status: 'completed', reason: terminal.stop_reason };
    case 'run.cancelled':
      return { ...outcome, status: 'cancelled', reason: terminal.reason };
    case 'run.failed':
      return { ...outcome, status: 'failed', errorCode: terminal.code };
    default:
      // An episode that threw without its terminal event: a fault of the bridge.
      return { ...outcome, status: 'failed', errorCode: 'internal_error' };
  }
}
