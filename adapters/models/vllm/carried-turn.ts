import type { Message, ToolCall } from '../../../src/models/conversation.js';

/** A completion whose stream ended normally, as the next turn needs it. */
export interface FinishedTurn {
  /** The prompt as the server took it. */
  promptIds: number[];
  /** Undefined when the server returned none. */
  completionIds: number[] | undefined;
  /** The server's finish reason (`stop`, `length`, …). */
  finishReason: string;
  /** What stopped it: a token id or null for an end-of-turn token, a string for a stop string. */
  stopReason: number | string | null;
  /** The answer text and the calls the turn published. */
  content: string;
  toolCalls: ToolCall[];
}

/**
 * What the `vllm` provider keeps of a conversation's last turn, to carry its ids into the next
 * prompt: the turn, and where it stands — which the conversation the next turn is asked with must
 * still hold.
 */
export interface CarriedTurn extends FinishedTurn {
  /** The conversation's length when the turn was asked for: the turn's own message comes at this index. */
  messageCount: number;
  /** The tools and template kwargs it was rendered with (`RenderTarget.key`). */
  renderKey: string;
}

/**
 * Why the next prompt cannot begin with `carried`'s prompt and completion ids — the value of the
 * next turn's `newSequence.reason` — or the messages that came after the turn, for the bridge:
 * - `conversation_changed`: the conversation is not the one the turn was sampled in (its message was
 *   changed or is missing, something other than tool results and user messages came after it, or
 *   the tools or template kwargs changed);
 * - `approval_edit`: a person changed the arguments of one of its calls, so the turn as it stands is
 *   not what the model wrote;
 * - `truncated`: the completion was cut by `max_tokens`, so it has no end-of-turn token;
 * - `no_token_ids`: the server returned no completion ids;
 * - `no_end_of_turn`: a stop string ended it rather than the end-of-turn token.
 */
export function carryPlan(
  carried: CarriedTurn,
  messages: readonly Message[],
  renderKey: string,
): { newMessages: Message[]; completionIds: number[] } | { reason: string } {
  const own = messages[carried.messageCount];
  const after = messages.slice(carried.messageCount + 1);
  if (
    carried.renderKey !== renderKey ||
    own?.role !== 'assistant' ||
    !sameTurn(own, carried) ||
    after.length === 0 ||
    after.some((message) => message.role !== 'tool' && message.role !== 'user')
  ) {
    return { reason: 'conversation_changed' };
  }
  if (after.some((message) => message.role === 'tool' && message.editedArguments !== undefined))
    return { reason: 'approval_edit' };
  if (carried.finishReason === 'length') return { reason: 'truncated' };
  if (carried.completionIds === undefined || carried.completionIds.length === 0) return { reason: 'no_token_ids' };
  if (typeof carried.stopReason === 'string') return { reason: 'no_end_of_turn' };
  return { newMessages: after, completionIds: carried.completionIds };
}

function sameTurn(message: Extract<Message, { role: 'assistant' }>, carried: CarriedTurn): boolean {
  return (
    message.content === carried.content &&
    message.toolCalls.length === carried.toolCalls.length &&
    message.toolCalls.every((call, index) => {
      const made = carried.toolCalls[index]!;
      return call.id === made.id && call.name === made.name && call.arguments === made.arguments;
    })
  );
}
