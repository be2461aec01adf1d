import type { ErrorCode } from '../protocol/error-codes.js';
import type { RunEvent, StopReason, ToolReward, Usage } from '../protocol/run-events.js';
import type { RewardReduction } from '../protocol/run-request.js';
import type { PendingApproval, RunStatus } from '../protocol/run-snapshot.js';
import { reduceRewards } from './reduce-rewards.js';

/** What a snapshot shows of a run, folded from its event log (the snapshot is a view of the log). */
export interface RunSummary {
  status: RunStatus;
  turns: number;
  usage: Usage;
  rewards: ToolReward[];
  reward: number | null;
  finished: boolean;
  output: string | null;
  error: { code: string; message: string } | null;
  /** Why a completed run stopped; null until it completes. */
  stopReason: StopReason | null;
  /** Tool calls waiting for a decision, oldest first. */
  pendingApprovals: PendingApproval[];
}

/** The summary of a run whose log is still empty (it waits in the queue). */
export function emptySummary(): RunSummary {
  return {
    status: 'queued',
    turns: 0,
    usage: { input_tokens: 0, output_tokens: 0, total_tokens: 0 },
    rewards: [],
    reward: null,
    finished: false,
    output: null,
    error: null,
    stopReason: null,
    pendingApprovals: [],
  };
}

/** Folds one event into `summary` in place. Terminal events carry the authoritative totals. */
export function applyEvent(summary: RunSummary, event: RunEvent, reduction: RewardReduction = 'last'): void {
  switch (event.event) {
    case 'run.started':
      summary.status = 'running';
      break;
    case 'turn.completed':
      summary.turns = event.turn;
      summary.usage = {
        input_tokens: summary.usage.input_tokens + event.usage.input_tokens,
        output_tokens: summary.usage.output_tokens + event.usage.output_tokens,
        total_tokens: summary.usage.total_tokens + event.usage.total_tokens,
      };
      break;
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
      break;
    case 'tool.approval_required': {
      const { approval_id, tool, tool_call_id, arguments: args, turn, call_index, expires_at } = event;
      summary.pendingApprovals.push({ approval_id, tool, tool_call_id, arguments: args, turn, call_index, expires_at });
      summary.status = 'requires_action';
      break;
    }
    case 'tool.approval_resolved':
      summary.pendingApprovals = summary.pendingApprovals.filter((entry) => entry.approval_id !== event.approval_id);
      if (summary.pendingApprovals.length === 0) summary.status = 'running';
      break;
    case 'run.awaiting_input':
      summary.status = 'awaiting_input';
      break;
    case 'message.received':
      if (summary.status === 'awaiting_input') summary.status = 'running';
      break;
    case 'run.completed':
      Object.assign(summary, {
        status: 'completed',
        turns: event.turns,
        usage: event.usage,
        rewards: event.rewards,
        reward: event.reward,
        finished: event.finished,
        output: event.output,
        stopReason: event.stop_reason,
        pendingApprovals: [],
      });
      break;
    case 'run.failed':
      summary.pendingApprovals = [];
      summary.status = 'failed';
      summary.error = { code: event.code, message: event.error };
      break;
    case 'run.cancelled':
      summary.pendingApprovals = [];
      summary.status = 'cancelled';
      summary.error = { code: 'cancelled' satisfies ErrorCode, message: `Cancelled (${event.reason}).` };
      break;
    default:
      break;
  }
}
