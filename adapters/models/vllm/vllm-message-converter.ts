import type { Message } from '../../../src/models/conversation.js';
import { joinTextParts } from '../common/join-text-parts.js';
import { replayableToolArguments } from '../common/tool-arguments-object.js';
import { toChatTools } from '../openai-chat/chat-message-converter.js';

/** A message as vLLM's `/tokenize` takes it (OpenAI's chat shape, with `reasoning_content`). */
export type VllmChatMessage =
  | { role: 'system' | 'user'; content: string }
  | {
      role: 'assistant';
      content: string;
      reasoning_content?: string;
      tool_calls?: Array<{ id: string; type: 'function'; function: { name: string; arguments: string } }>;
    }
  | { role: 'tool'; tool_call_id: string; content: string };

/** A tool as vLLM's chat endpoints take it. */
export type VllmTool = ReturnType<typeof toChatTools>[number];

/** The tools of a request, as vLLM takes them. */
export const toVllmTools = toChatTools;

/**
 * The conversation for the server's chat template. Reasoning goes back as `reasoning_content` (the
 * template decides what to keep: Qwen3's drops it before the last user message); content is text
 * only, an image standing as `[image: mime/type]` (`/tokenize` does not expand images into their
 * tokens). A call whose arguments a person edited is rendered with the arguments it ran with: the
 * model did not write them, and this render is what its next turn reads.
 */
export function toVllmMessages(messages: readonly Message[]): VllmChatMessage[] {
  const edited = new Map<string, Record<string, unknown>>();
  for (const message of messages)
    if (message.role === 'tool' && message.editedArguments) edited.set(message.toolCallId, message.editedArguments);
  return messages.map((message): VllmChatMessage => {
    switch (message.role) {
      case 'system':
        return { role: 'system', content: message.content };
      case 'user':
        return { role: 'user', content: joinTextParts(message.content) };
      case 'tool':
        return { role: 'tool', tool_call_id: message.toolCallId, content: joinTextParts(message.content) };
      case 'assistant': {
        const reasoning = message.reasoning.map((block) => block.text).join('\n\n');
        return {
          role: 'assistant',
          content: message.content,
          ...(reasoning === '' ? {} : { reasoning_content: reasoning }),
          ...(message.toolCalls.length === 0
            ? {}
            : {
                tool_calls: message.toolCalls.map((call) => {
                  const ran = edited.get(call.id);
                  const args = ran === undefined ? replayableToolArguments(call.arguments) : JSON.stringify(ran);
                  return { id: call.id, type: 'function' as const, function: { name: call.name, arguments: args } };
                }),
              }),
        };
      }
    }
  });
}
