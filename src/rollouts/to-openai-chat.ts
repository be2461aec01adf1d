import type { ContentPart, Message, ToolDefinition } from '../models/conversation.js';
import type { ChatContentPart, ChatMessage, ChatTool } from './trajectory-schema.js';

/**
 * The provider-neutral conversation → OpenAI chat format, for trajectory records. Unlike the
 * openai-chat adapter's converter (which shapes requests a live API accepts), this one is lossless:
 * reasoning is kept in `reasoning_content`, tool-call arguments stay as the model wrote them, and a
 * tool result's images stay in its own message as `image_url` parts.
 */

/**
 * Converts `messages` one to one, in order. Text-only content becomes one string (parts joined with
 * `\n`); content with images becomes a list of `text` / `image_url` (data URI) parts. An assistant
 * message's `content` is null when it only calls tools; `reasoning_content` (all reasoning blocks,
 * joined by a blank line) and `tool_calls` appear only when non-empty. Provider-private reasoning
 * state (signatures, encrypted items) is dropped: it means nothing outside the provider.
 */
export function toOpenAiChatMessages(messages: readonly Message[]): ChatMessage[] {
  return messages.map((message): ChatMessage => {
    switch (message.role) {
      case 'system':
        return { role: 'system', content: message.content };
      case 'user':
        return { role: 'user', content: toChatContent(message.content) };
      case 'tool':
        return { role: 'tool', tool_call_id: message.toolCallId, content: toChatContent(message.content) };
      case 'assistant': {
        const reasoning = message.reasoning.map((block) => block.text).join('\n\n');
        return {
          role: 'assistant',
          content: message.toolCalls.length > 0 && message.content === '' ? null : message.content,
          ...(reasoning === '' ? {} : { reasoning_content: reasoning }),
          ...(message.toolCalls.length === 0
            ? {}
            : {
                tool_calls: message.toolCalls.map((call) => ({
                  id: call.id,
                  type: 'function' as const,
                  function: { name: call.name, arguments: call.arguments },
                })),
              }),
        };
      }
    }
  });
}

/** Tool definitions as OpenAI function tools, each schema exactly as the environment gave it. */
export function toOpenAiChatTools(tools: readonly ToolDefinition[]): ChatTool[] {
  return tools.map((tool) => ({
    type: 'function',
    function: { name: tool.name, description: tool.description, parameters: tool.inputSchema },
  }));
}

type TextPart = Extract<ContentPart, { type: 'text' }>;

function toChatContent(parts: readonly ContentPart[]): string | ChatContentPart[] {
  if (parts.every((part): part is TextPart => part.type === 'text')) return parts.map((part) => part.text).join('\n');
  return parts.map((part) =>
    part.type === 'text'
      ? { type: 'text', text: part.text }
      : { type: 'image_url', image_url: { url: `data:${part.mimeType};base64,${part.data}` } },
  );
}
