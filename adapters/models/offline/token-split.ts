import type { Message, ToolDefinition } from '../../../src/models/conversation.js';

/**
 * A rough tokenizer for streaming and usage: words, numbers and single punctuation marks, each with
 * the whitespace before it. Close enough to real BPE counts for usage figures to look plausible, and
 * it never splits a surrogate pair (the `u` flag works on code points).
 */

const TOKEN = /\s*(?:[\p{L}\p{N}_]+|[^\s\p{L}\p{N}_])|\s+/gu;

/** `text` cut into tokens whose concatenation is exactly `text`; `''` gives no tokens. */
export function splitTokens(text: string): string[] {
  return text.match(TOKEN) ?? [];
}

/** The number of tokens in `text`. */
export function countTokens(text: string): number {
  return splitTokens(text).length;
}

/** Images count as a flat cost, as vendors bill small images. */
const IMAGE_TOKENS = 85;
/** Per-message overhead of chat formats (role markers, separators). */
const MESSAGE_OVERHEAD = 3;

/** Plausible prompt tokens of a request: every message's content and the tool definitions. */
export function countPromptTokens(messages: readonly Message[], tools: readonly ToolDefinition[]): number {
  let total = 0;
  for (const message of messages) {
    total += MESSAGE_OVERHEAD;
    switch (message.role) {
      case 'system':
        total += countTokens(message.content);
        break;
      case 'user':
      case 'tool':
        for (const part of message.content) total += part.type === 'text' ? countTokens(part.text) : IMAGE_TOKENS;
        break;
      case 'assistant':
        total += countTokens(message.content);
        for (const block of message.reasoning) total += countTokens(block.text);
        for (const call of message.toolCalls) total += countTokens(call.name) + countTokens(call.arguments);
        break;
    }
  }
  for (const tool of tools)
    total += countTokens(tool.name) + countTokens(tool.description) + countTokens(JSON.stringify(tool.inputSchema));
  return total;
}
