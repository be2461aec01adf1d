import type { ContentPart, Message, ToolDefinition } from '../models/conversation.js';
import type { TokenData } from '../models/model.js';
import type {
  ApprovalDecider,
  ApprovalDecision,
  CancelReason,
  FinishReason,
  StopReason,
  TaskRef,
  ToolReward,
  Usage,
} from '../protocol/run-events.js';
import type { Sampling } from '../protocol/run-request.js';

/**
 * The full record of one episode, as {@link EpisodeFold} folds it from the episode's events (the
 * log is the only record; `docs/events.md`, "The record events"). Rollouts serialise it.
 */

/** How a person (or the approval timeout) decided about a call that waited for approval. */
export interface ApprovalRecord {
  approvalId: string;
  decision: ApprovalDecision;
  by: ApprovalDecider;
  reason?: string;
  /** True when a person changed the arguments; `arguments` is what the call ran with. */
  edited: boolean;
  arguments: Record<string, unknown>;
}

export interface ToolCallRecord {
  id: string;
  name: string;
  /** The raw argument text the model produced. */
  arguments: string;
  /** The whole result as the model was shown it: the tool's output, or the error text of a failed call. */
  content: ContentPart[];
  /** The tool output's `metadata` as the environment sent it (e.g. whether an answer was correct); null when none. */
  metadata: Record<string, unknown> | null;
  reward: number | null;
  finished: boolean;
  error: boolean;
  errorMessage?: string;
  durationMs: number;
  /** Present when the call waited for approval; a denied call never ran, and its `content` says so. */
  approval?: ApprovalRecord;
}

/** A message a person sent while the run ran, where it joined the conversation. */
export interface UserMessageRecord {
  messageId: string;
  /** The model turn that read it first. */
  turn: number;
  /** Its position in the record's `messages`. */
  index: number;
}

export interface EpisodeStep {
  turn: number;
  finishReason: FinishReason;
  rawFinishReason?: string;
  usage: Usage;
  text: string;
  reasoning: string;
  toolCalls: ToolCallRecord[];
  tokenData?: TokenData;
  modelMs: number;
}

/** How an episode ended. */
export type EpisodeEnd =
  | { status: 'completed'; stopReason: StopReason }
  | { status: 'failed'; code: string; message: string }
  | { status: 'cancelled'; reason: CancelReason };

export interface EpisodeRecord {
  env: string;
  task: TaskRef;
  model: string;
  sampling: Sampling;
  /** The conversation as the model saw it, the environment's prompt included. */
  messages: Message[];
  /** Which of `messages` a person sent while the run ran (`POST /v1/runs/:id/messages`). */
  userMessages: UserMessageRecord[];
  tools: ToolDefinition[];
  steps: EpisodeStep[];
  usage: Usage;
  rewards: ToolReward[];
  reward: number | null;
  finished: boolean;
  turns: number;
  /** The final assistant text. */
  output: string;
  end: EpisodeEnd;
  timing: {
    startedAt: number;
    endedAt: number;
    /** Time spent waiting on the model. */
    modelMs: number;
    /** Time spent in ORS: session set-up, prompt, tools, calls and teardown. */
    envMs: number;
  };
}
