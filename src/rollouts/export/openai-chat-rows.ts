import type { ChatTool, TrajectoryRecord, TrajectoryStatus, TrajectoryStopReason } from '../trajectory-schema.js';
import { type ExportedMessage, messagesForExport } from './export-messages.js';
import { rewardOf } from './group-records.js';
import { type TaskColumns, taskColumns } from './task-columns.js';

/**
 * One row of an `openai-chat` export: the conversation and the tools offered, in the shape TRL's
 * SFT trainer and chat templates read (`messages` + `tools`), followed by what identifies and scores
 * the episode (`docs/trajectory.md`, "openai-chat").
 */
export interface OpenAiChatRow extends TaskColumns {
  messages: ExportedMessage[];
  tools: ChatTool[];
  status: TrajectoryStatus;
  stop_reason: TrajectoryStopReason;
  /** The episode's reward as a float; 0 for an unscored episode (see `scored`). */
  reward: number;
  /** Whether the environment scored the episode (the record's reward is not null). */
  scored: boolean;
}

/** The paths of {@link OpenAiChatRow} written as floats (see `toJsonLine`). */
export const OPENAI_CHAT_FLOAT_PATHS: ReadonlySet<string> = new Set(['reward']);

/** The row of `record`; `asParts` writes every message content as a list of parts (see `messagesForExport`). */
export function toOpenAiChatRow(record: TrajectoryRecord, asParts: boolean): OpenAiChatRow {
  return {
    messages: messagesForExport(record.messages, asParts),
    tools: record.tools,
    ...taskColumns(record),
    status: record.status,
    stop_reason: record.stop_reason,
    reward: rewardOf(record),
    scored: record.reward !== null,
  };
}
