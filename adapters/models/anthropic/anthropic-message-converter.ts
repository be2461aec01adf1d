import type {
  ContentBlockParam,
  ImageBlockParam,
  MessageCreateParamsStreaming,
  MessageParam,
  TextBlockParam,
  Tool,
  ToolResultBlockParam,
} from '@anthropic-ai/sdk/resources/messages';
import type { ContentPart, Message, ToolDefinition } from '../../../src/models/conversation.js';
import type { ModelRequest } from '../../../src/models/model.js';
import { joinTextParts } from '../common/join-text-parts.js';
import { mergeExtraBody } from '../common/merge-extra-body.js';
import { sanitizeToolSchema } from '../common/sanitize-tool-schema.js';
import { toolArgumentsObject } from '../common/tool-arguments-object.js';
import { ANTHROPIC_VENDOR } from './anthropic-error-to-model-error.js';
import { anthropicReasoningData } from './anthropic-reasoning-data.js';

/** Keys of the body the bridge sets itself and `extra_body` may not replace. */
export const ANTHROPIC_RESERVED_KEYS = ['model', 'messages', 'tools', 'stream'] as const;

/** Image types the Messages API takes; others are replaced by a text note. */
const IMAGE_TYPES = ['image/jpeg', 'image/png', 'image/gif', 'image/webp'] as const;
type AnthropicImageType = (typeof IMAGE_TYPES)[number];

/** Options of {@link toAnthropicParams}. */
export interface AnthropicParamsOptions {
  /** The output limit when the sampling sets none — the Messages API requires one. */
  defaultMaxTokens: number;
}

/**
 * The Messages API body for one streaming call: the system messages joined into `system`, the
 * converted conversation and tools, `max_tokens` (the sampling's, else `defaultMaxTokens`), and
 * `extra_body` laid over the result verbatim (e.g. `thinking: {type: "adaptive"}`). `temperature`,
 * `top_p` and `seed` are not sent: the API version this SDK speaks (`anthropic-version: 2026-10-21`)
 * answers 400 to any sampling parameter, even at its default, and never had a seed. Throws a
 * `model_bad_request` `ModelError` when `extra_body` names a reserved key.
 */
export function toAnthropicParams(
  model: string,
  request: Pick<ModelRequest, 'messages' | 'tools' | 'sampling'>,
  options: AnthropicParamsOptions,
): MessageCreateParamsStreaming {
  const { sampling } = request;
  const system = request.messages.flatMap((message) => (message.role === 'system' ? [message.content] : []));
  const params: MessageCreateParamsStreaming = {
    model,
    max_tokens: sampling.max_tokens ?? options.defaultMaxTokens,
    messages: toAnthropicMessages(request.messages),
    stream: true,
  };
  if (system.length > 0) params.system = system.join('\n\n');
  if (request.tools.length > 0) params.tools = toAnthropicTools(request.tools);
  return mergeExtraBody(params, sampling.extra_body, ANTHROPIC_RESERVED_KEYS, ANTHROPIC_VENDOR);
}

/**
 * The conversation as Messages API turns (system messages are left to `system`). An assistant
 * turn is its reasoning blocks first — only those this adapter produced, thinking with its
 * signature and redacted thinking as its data, in their original order — then its text, then its
 * `tool_use` blocks (arguments that are not a JSON object go as `{}`). Tool results become
 * `tool_result` blocks with `is_error`, images included, in one user turn with any user message
 * that follows. Empty text is left out (the API rejects empty text blocks), and a turn left with
 * nothing is dropped.
 */
export function toAnthropicMessages(messages: readonly Message[]): MessageParam[] {
  const out: MessageParam[] = [];
  const pushUser = (blocks: ContentBlockParam[]): void => {
    if (blocks.length === 0) return;
    const last = out.at(-1);
    if (last?.role === 'user' && Array.isArray(last.content)) last.content.push(...blocks);
    else out.push({ role: 'user', content: blocks });
  };
  for (const message of messages) {
    switch (message.role) {
      case 'system':
        break;
      case 'user':
        pushUser(toContentBlocks(message.content));
        break;
      case 'tool':
        pushUser([toToolResult(message)]);
        break;
      case 'assistant': {
        const blocks = toAssistantBlocks(message);
        if (blocks.length > 0) out.push({ role: 'assistant', content: blocks });
        break;
      }
    }
  }
  return out;
}

/** Tool definitions as Messages API tools, with schemas sanitised for the API. */
export function toAnthropicTools(tools: readonly ToolDefinition[]): Tool[] {
  return tools.map((tool) => ({
    name: tool.name,
    description: tool.description,
    input_schema: { ...sanitizeToolSchema(tool.inputSchema), type: 'object' },
  }));
}

function toAssistantBlocks(message: Extract<Message, { role: 'assistant' }>): ContentBlockParam[] {
  const blocks: ContentBlockParam[] = [];
  for (const block of message.reasoning) {
    const data = anthropicReasoningData(block);
    if (data?.type === 'thinking') blocks.push({ type: 'thinking', thinking: block.text, signature: data.signature });
    else if (data?.type === 'redacted_thinking') blocks.push({ type: 'redacted_thinking', data: data.data });
  }
  if (message.content.trim() !== '') blocks.push({ type: 'text', text: message.content });
  for (const call of message.toolCalls) {
    blocks.push({ type: 'tool_use', id: call.id, name: call.name, input: toolArgumentsObject(call.arguments) ?? {} });
  }
  return blocks;
}

/** A tool result; `content` is left out when there is none (it is optional, empty text is not). */
function toToolResult(message: Extract<Message, { role: 'tool' }>): ToolResultBlockParam {
  const hasImages = message.content.some((part) => part.type === 'image');
  const content = hasImages ? toContentBlocks(message.content) : joinTextParts(message.content);
  return {
    type: 'tool_result',
    tool_use_id: message.toolCallId,
    ...(content.length === 0 ? {} : { content }),
    ...(message.isError ? { is_error: true } : {}),
  };
}

function toContentBlocks(parts: readonly ContentPart[]): Array<TextBlockParam | ImageBlockParam> {
  const blocks: Array<TextBlockParam | ImageBlockParam> = [];
  for (const part of parts) {
    if (part.type === 'text') {
      if (part.text !== '') blocks.push({ type: 'text', text: part.text });
    } else if (isAnthropicImageType(part.mimeType)) {
      blocks.push({ type: 'image', source: { type: 'base64', media_type: part.mimeType, data: part.data } });
    } else {
      blocks.push({
        type: 'text',
        text: `[image of type ${part.mimeType} omitted: Anthropic accepts ${IMAGE_TYPES.join(', ')}]`,
      });
    }
  }
  return blocks;
}

function isAnthropicImageType(mimeType: string): mimeType is AnthropicImageType {
  return (IMAGE_TYPES as readonly string[]).includes(mimeType);
}
