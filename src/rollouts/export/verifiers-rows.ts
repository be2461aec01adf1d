import type { ChatTool, TrajectoryRecord } from '../trajectory-schema.js';
import { type EpisodeTokens, type StepTokens, stepTokens, type TokenCheck } from './episode-tokens.js';
import { type ExportedMessage, messagesForExport, splitConversation } from './export-messages.js';
import { rewardOf } from './group-records.js';

/**
 * One line of a `verifiers` export's `results.jsonl`, in the layout of PrimeIntellect's verifiers
 * (its `RolloutOutput`): prompt, completion, answer, info, reward, and per-turn token ids, masks and
 * logprobs in `trajectory[].tokens` (`docs/trajectory.md`, "verifiers").
 */
export interface VerifiersRow {
  /** The group's position in the export (0, 1, …): verifiers groups the samples of one example by it. */
  example_id: number;
  prompt: ExportedMessage[];
  completion: ExportedMessage[];
  /** The task spec's `answer` as text, when it has one; otherwise empty. */
  answer: string;
  /** JSON text: env, split, index, group_id, sample_index, rollout_id and the task spec. */
  info: string;
  /** The episode's reward as a float; 0 for an unscored episode (see `scored`). */
  reward: number;
  scored: boolean;
  error: { error: string; message: string; error_chain_repr: string; error_chain_str: string } | null;
  /** Seconds; `generation` spans the episode. */
  timing: {
    start_time: number;
    generation: { start: number; end: number; duration: number };
    model: { duration: number };
    env: { duration: number };
    total: number;
    overhead: number;
  };
  is_completed: boolean;
  /** The episode hit its turn limit or the model's context, or a turn stopped at the token limit. */
  is_truncated: boolean;
  stop_condition: string;
  metrics: { turns: number; tool_calls: number; failed_tool_calls: number };
  tool_defs: Array<{ name: string; description: string; parameters: Record<string, unknown> }>;
  token_usage: { input_tokens: number; output_tokens: number };
  trajectory: VerifiersStep[];
  token_check: TokenCheck;
  token_issue: string | null;
}

/** One model turn, as a verifiers `TrajectoryStep` without the messages (they are the row's prompt and completion). */
export interface VerifiersStep {
  /** Null unless the server returned prompt ids, completion ids and logprobs for the turn. */
  tokens: StepTokens | null;
  reward: number | null;
  is_truncated: boolean;
  trajectory_id: string;
  extras: { turn: number; finish_reason: string };
}

/** The paths of {@link VerifiersRow} written as floats (see `toJsonLine`). */
export const VERIFIERS_FLOAT_PATHS: ReadonlySet<string> = new Set([
  'reward',
  'timing.start_time',
  'timing.generation.start',
  'timing.generation.end',
  'timing.generation.duration',
  'timing.model.duration',
  'timing.env.duration',
  'timing.total',
  'timing.overhead',
  'trajectory[].reward',
  'trajectory[].tokens.completion_logprobs[]',
]);

/** The row of `record`, in the group at position `exampleId`; `asParts` as in `messagesForExport`. */
export function toVerifiersRow(
  record: TrajectoryRecord,
  exampleId: number,
  tokens: EpisodeTokens,
  asParts: boolean,
): VerifiersRow {
  const { prompt, completion } = splitConversation(messagesForExport(record.messages, asParts));
  const { timing, metrics } = record;
  return {
    example_id: exampleId,
    prompt,
    completion,
    answer: answerOf(record.task.spec),
    info: JSON.stringify({
      env: record.task.env,
      split: record.task.split,
      index: record.task.index,
      group_id: record.group_id,
      sample_index: record.sample_index,
      rollout_id: record.rollout_id,
      spec: record.task.spec ?? null,
    }),
    reward: rewardOf(record),
    scored: record.reward !== null,
    error:
      record.error === null
        ? null
        : {
            error: record.error.code,
            message: record.error.message,
            error_chain_repr: `${record.error.code}: ${record.error.message}`,
            error_chain_str: `${record.error.code}: ${record.error.message}`,
          },
    timing: {
      start_time: timing.started_at,
      generation: { start: timing.started_at, end: timing.ended_at, duration: timing.total_ms / 1000 },
      model: { duration: timing.model_ms / 1000 },
      env: { duration: timing.env_ms / 1000 },
      total: timing.total_ms / 1000,
      overhead: timing.overhead_ms / 1000,
    },
    is_completed: record.status === 'completed',
    is_truncated:
      record.stop_reason === 'max_turns' ||
      record.stop_reason === 'context_exceeded' ||
      record.steps.some((step) => step.finish_reason === 'length'),
    stop_condition: record.stop_reason,
    metrics: { turns: metrics.turns, tool_calls: metrics.tool_calls, failed_tool_calls: metrics.failed_tool_calls },
    tool_defs: record.tools.map(toolDef),
    token_usage: { input_tokens: metrics.input_tokens, output_tokens: metrics.output_tokens },
    trajectory: record.steps.map((step) => ({
      tokens: stepTokens(step),
      reward: step.reward,
      is_truncated: step.finish_reason === 'length',
      trajectory_id: record.rollout_id,
      extras: { turn: step.turn, finish_reason: step.finish_reason },
    })),
    token_check: tokens.check,
    token_issue: tokens.issue,
  };
}

function toolDef(tool: ChatTool): VerifiersRow['tool_defs'][number] {
  return { name: tool.function.name, description: tool.function.description, parameters: tool.function.parameters };
}

/** The spec's `answer` as text: a string as is, anything else as JSON; empty when the spec has none. */
function answerOf(spec: unknown): string {
  if (spec === null || typeof spec !== 'object' || !('answer' in spec)) return '';
  const answer = (spec as { answer: unknown }).answer;
  if (answer === undefined || answer === null) return '';
  return typeof answer === 'string' ? answer : JSON.stringify(answer);
}
