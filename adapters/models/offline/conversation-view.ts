import type { ContentPart, Message, ToolDefinition } from '../../../src/models/conversation.js';

/**
 * A read-only summary of a conversation for the offline policy: what the user said, each tool call
 * paired with the tool message that answered it, and the tools on offer. The policy decides from this
 * alone, as a real model decides from its context; it never sees an environment's internals.
 */

/** A tool call and, once the tool message has arrived, its result. */
export interface ToolExchange {
  name: string;
  /** The call's arguments; `{}` when they were not a JSON object. */
  arguments: Record<string, unknown>;
  /** Absent while no tool message answers the call. */
  result?: { text: string; isError: boolean };
}

/** The conversation as the policy reads it. */
export interface ConversationView {
  /** The text of each user message, in order. */
  userTexts: string[];
  /** Every tool call of every assistant message, in order. */
  exchanges: ToolExchange[];
  /** The number of the turn being decided: 1 + the assistant messages so far. */
  turn: number;
  /** Names of the tools offered for this turn. */
  toolNames: ReadonlySet<string>;
}

/** Builds the view. Tool messages whose call id matches no earlier call are ignored. */
export function viewConversation(messages: readonly Message[], tools: readonly ToolDefinition[]): ConversationView {
  const userTexts: string[] = [];
  const exchanges: ToolExchange[] = [];
  const byId = new Map<string, ToolExchange>();
  let assistantMessages = 0;
  for (const message of messages) {
    switch (message.role) {
      case 'user':
        userTexts.push(partsText(message.content));
        break;
      case 'assistant':
        assistantMessages++;
        for (const call of message.toolCalls) {
          const exchange: ToolExchange = { name: call.name, arguments: parseObject(call.arguments) };
          exchanges.push(exchange);
          byId.set(call.id, exchange);
        }
        break;
      case 'tool': {
        const exchange = byId.get(message.toolCallId);
        if (exchange) exchange.result = { text: partsText(message.content), isError: message.isError };
        break;
      }
      case 'system':
        break;
    }
  }
  return { userTexts, exchanges, turn: assistantMessages + 1, toolNames: new Set(tools.map((tool) => tool.name)) };
}

/** The exchanges of one tool, in order. */
export function exchangesOf(view: ConversationView, name: string): ToolExchange[] {
  return view.exchanges.filter((exchange) => exchange.name === name);
}

/** How a submit result judged the answer, as a clause: "it was marked correct", or the result quoted when it says neither. */
export function verdictOf(resultText: string): string {
  if (/\bincorrect\b/i.test(resultText)) return 'it was marked incorrect';
  if (/\bcorrect\b/i.test(resultText)) return 'it was marked correct';
  return `the environment answered: ${resultText}`;
}

function partsText(parts: readonly ContentPart[]): string {
  return parts.map((part) => (part.type === 'text' ? part.text : `[image: ${part.mimeType}]`)).join('\n');
}

function parseObject(text: string): Record<string, unknown> {
  try {
    const value: unknown = JSON.parse(text);
    return value !== null && typeof value === 'object' && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : {};
  } catch {
    return {};
  }
}
