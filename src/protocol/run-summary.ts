import type { ErrorCode } from './error-codes.js';
import { reduceRewards } from './reduce-rewards.js';
import type { RunEvent, StopReason, ToolReward, Usage } from './run-events.js';
import type { RewardReduction } from './run-request.js';
import { foldRunStatus, queuedStanding, type RunStanding } from './run-status.js';

/**
 * What a snapshot shows of a run, folded from its event log: the one place that says which event moves a
 * run to which status (docs/protocol.md §2). The server's logs, both stores and the chat page fold with
 * {@link foldRunEvent}, so none keeps a second account.
 */
export interface RunSummary extends RunStanding {
  turns: number;
  usage: Usage;
  rewards: ToolReward[];
  reward: number | null;
  finished: boolean;
  output: string | null;
  error: { code: string; message: string } | null;
  /** Why a completed run stopped; null until it completes. */
  stopReason: StopReason | null;
}

/** The summary of a run whose log is still empty (it waits in the queue). */
export function emptySummary(): RunSummary {
  return {
    ...queuedStanding(),
    turns: 0,
    usage: { input_tokens: 0, output_tokens: 0, total_tokens: 0 },
    rewards: [],
    reward: null,
    finished: false,
    output: null,
    error: null,
    stopReason: null,
  };
}

/**
 * Folds one event into `summary` in place: status and pending approvals by {@link foldRunStatus}, the
 * totals here. Terminal events carry the authoritative totals.
 */
export function foldRunEvent(summary: RunSummary, event: RunEvent, reduction: RewardReduction): void {
  foldRunStatus(summary, event);
  switch (event.event) {
    case 'turn.completed':
      summary.turns = event.turn;
      summary.usage = {
        input_tokens: summary.usage.input_tokens + event.usage.input_tokens,
        output_tokens: summary.usage.output_tokens + event.usage.output_tokens,
        total_tokens: summary.usage.total_tokens + event.usage.total_tokens,
      };
      return;
    case 'tool.completed':
      summary.rewards.push({
        tool_call_id: event.tool_call_id,
        tool: event.tool,
        turn: event.turn,
        reward: event.reward,
      });
      summary.reward = reduceRewards(
        summary.rewards.map((entry) => entry.reward),
        reduction,
      );
      summary.finished ||= event.finished;
      return;
    case 'run.completed':
      summary.turns = event.turns;
      summary.usage = event.usage;
      summary.rewards = event.rewards;
      summary.reward = event.reward;
      summary.finished = event.finished;
      summary.output = event.output;
      summary.stopReason = event.stop_reason;
      return;
    case 'run.failed':
      summary.error = { code: event.code, message: event.error };
      return;
    case 'run.cancelled':
      summary.error = { code: 'cancelled' satisfies ErrorCode, message: `Cancelled (${event.reason}).` };
      return;
    default:
      return;
  }
}
