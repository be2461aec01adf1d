import type { ModelFinishReason } from '../models/model.js';
import type { FinishReason } from '../protocol/run-events.js';

/** Each finish reason of the model contract as `turn.completed` carries it; the table makes a new one on either side a type error here. */
const WIRE: Readonly<Record<ModelFinishReason, FinishReason>> = {
  stop: 'stop',
  tool_calls: 'tool_calls',
  length: 'length',
  content_filter: 'content_filter',
  error: 'error',
  other: 'other',
};

/** Why a model call ended, as the run events say it (`turn.completed.finish_reason`, docs/protocol.md). */
export function wireFinishReason(reason: ModelFinishReason): FinishReason {
  return WIRE[reason];
}
