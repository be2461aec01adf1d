import type { ChatTool, TrajectoryRecord, TrajectoryStatus, TrajectoryStopReason } from '../trajectory-schema.js';
import type { EpisodeTokens, TokenCheck } from './episode-tokens.js';
import { type ExportedMessage, messagesForExport, splitConversation } from './export-messages.js';
import { rewardOf } from './group-records.js';
import { advantageOf, type RewardStats } from './reward-stats.js';
import { type TaskColumns, taskColumns } from './task-columns.js';

/**
 * One row of a `grpo` export: an episode with its reward as a float, its group's statistics and its
 * advantage, and — where the model server returned token ids — the episode as one token sequence
 * with a mask of what the model generated; an episode whose ids had to start a new sequence is one
 * row per sequence, never one wrong sequence (`docs/trajectory.md`, "grpo").
 */
export interface GrpoRow extends TaskColumns {
  /** The messages before the model's first turn. */
  prompt: ExportedMessage[];
  /** The model's turns and the tool results between them. */
  completion: ExportedMessage[];
  tools: ChatTool[];
  /** The episode's reward as a float; 0 for an unscored episode (see `scored`). */
  reward: number;
  /** Whether the environment scored the episode (the record's reward is not null). */
  scored: boolean;
  /** Samples of this task in the export, and the mean and population standard deviation of their rewards. */
  group_size: number;
  group_mean: number;
  group_std: number;
  /** `(reward − group_mean) / group_std`; 0 when the group's rewards are all equal. */
  advantage: number;
  status: TrajectoryStatus;
  stop_reason: TrajectoryStopReason;
  finished: boolean;
  turns: number;
  /** What the token check found (see `TokenCheck`), and what is wrong, turn by turn. */
  token_check: TokenCheck;
  token_issue: string | null;
  /** Which of the episode's token sequences this row holds (0, 1, …), and how many rows the episode has. */
  sequence: number;
  sequences: number;
  /** The turns the row's sequence holds, first and last; null without one. */
  sequence_turns: [number, number] | null;
  /** Why the sequence began anew (the turn's `new_sequence.reason`); null for an episode's first. */
  sequence_reason: string | null;
  /** The row's token sequence (first prompt, then completions and what each next prompt added), when the check is `ok`. */
  prompt_length: number | null;
  token_ids: number[] | null;
  /** 1 where the model generated the token. */
  token_mask: number[] | null;
  /** The model's logprob where the mask is 1, 0 elsewhere; null when the server returned no logprobs. */
  token_logprobs: number[] | null;
}

/** The paths of {@link GrpoRow} written as floats (see `toJsonLine`). */
export const GRPO_FLOAT_PATHS: ReadonlySet<string> = new Set([
  'reward',
  'group_mean',
  'group_std',
  'advantage',
  'token_logprobs[]',
]);

/** The rows of `record` — one per token sequence, one when it has none — a member of a group of `size` samples with `stats`; `asParts` as in `messagesForExport`. */
export function toGrpoRows(
  record: TrajectoryRecord,
  group: { size: number; stats: RewardStats },
  tokens: EpisodeTokens,
  asParts: boolean,
): GrpoRow[] {
  const { prompt, completion } = splitConversation(messagesForExport(record.messages, asParts));
  const reward = rewardOf(record);
  const base = {
    ...taskColumns(record),
    prompt,
    completion,
    tools: record.tools,
    reward,
    scored: record.reward !== null,
    group_size: group.size,
    group_mean: group.stats.mean,
    group_std: group.stats.std,
    advantage: advantageOf(reward, group.stats),
    status: record.status,
    stop_reason: record.stop_reason,
    finished: record.finished,
    turns: record.metrics.turns,
    token_check: tokens.check,
    token_issue: tokens.issue,
  };
  const sequences = tokens.sequences.length > 0 ? tokens.sequences : [null];
  return sequences.map((sequence, index) => ({
    ...base,
    sequence: index,
    sequences: sequences.length,
    sequence_turns: sequence?.turns ?? null,
    sequence_reason: sequence?.reason ?? null,
    prompt_length: sequence?.promptLength ?? null,
    token_ids: sequence?.ids ?? null,
    token_mask: sequence?.mask ?? null,
    token_logprobs: sequence?.logprobs ?? null,
  }));
}
