import type { ChatFinishReason } from '../../protocol/chat-completion.js';
import type { StopReason } from '../../protocol/run-events.js';

/**
 * How a completed run's message finished, in the words OpenAI's chunks and the AI SDK's `finish` share:
 * `stop` when the episode ended by itself (`finished` or `no_tool_calls`) — not `tool_calls`, which
 * would tell the client to run tools the bridge has already run — and `length` when it was cut at
 * `max_turns`.
 */
export function finishReasonOf(stopReason: StopReason): ChatFinishReason {
  return stopReason === 'max_turns' ? 'length' : 'stop';
}
