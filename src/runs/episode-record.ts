import type { Message, ToolDefinition } from '../models/conversation.js';
import type { TokenData } from '../models/model.js';
import type { Block } from '../ors/ors-schemas.js';
import type { CancelReason, FinishReason, StopReason, TaskRef, ToolReward, Usage } from '../protocol/run-events.js';
import type { Sampling } from '../protocol/run-request.js';

/**
 * The full record of one episode: what the events publish, plus what they cut (whole tool outputs,
 * token data). Rollouts serialise it; the registry keeps it with the run.
 */

export interface ToolCallRecord {
  id: string;
  name: string;
  /** The raw argument text the model produced. */
  arguments: string;
  /** Parsed arguments, or null when the text was not a JSON object. */
  parsedArguments: Record<string, unknown> | null;
  /** The whole output text (events carry a cut copy). */
  output: string;
  blocks: Block[];
  /** The tool output's `metadata` as the environment sent it (e.g. whether an answer was correct); null when none. */
  metadata: Record<string, unknown> | null;
  reward: number | null;
  finished: boolean;
  error: boolean;
  errorMessage?: string;
  durationMs: number;
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
