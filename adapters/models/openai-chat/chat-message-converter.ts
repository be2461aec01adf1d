import type {
  ChatCompletionAssistantMessageParam,
  ChatCompletionContentPart,
  ChatCompletionContentPartImage,
  ChatCompletionCreateParamsStreaming,
  ChatCompletionFunctionTool,
  ChatCompletionMessageParam,
} from 'openai/resources/chat/completions';
import type { ContentPart, Message, ToolDefinition } from '../../../src/models/conversation.js';
import type { ModelRequest } from '../../../src/models/model.js';
import { joinTextParts } from '../common/join-text-parts.js';
import { mergeExtraBody } from '../common/merge-extra-body.js';
import { OPENAI_VENDOR } from '../common/openai-error-to-model-error.js';
import { sanitizeToolSchema } from '../common/sanitize-tool-schema.js';
import { replayableToolArguments } from '../common/tool-arguments-object.js';
import type { VendorInfo } from '../common/vendor-failure.js';

/**
 * Which body key carries the output-token limit. OpenAI itself wants `max_completion_tokens` (its
 * reasoning models refuse `max_tokens`); OpenAI-compatible servers all know `max_tokens`, and not
 * all of them know the newer name.
 */
export type MaxTokensParam = 'max_tokens' | 'max_completion_tokens';

/** Options of {@link toChatCompletionParams}. */
export interface ChatParamsOptions {
  /** The body key that carries `sampling.max_tokens`. */
  maxTokensParam: MaxTokensParam;
  /** Names the server in error messages; OpenAI by default. */
  vendor?: VendorInfo;
}

/** Keys of the body the bridge sets itself and `extra_body` may not replace. */
export const CHAT_RESERVED_KEYS = ['model', 'messages', 'tools', 'stream'] as const;

/**
 * The Chat Completions body for one streaming call: the converted conversation and tools, the
 * sampling settings (`temperature`, `top_p`, `seed`, the token limit under `maxTokensParam`),
 * `stream_options.include_usage` so the last chunk carries usage, and `extra_body` laid over the
 * result verbatim. `tools` is left out when there are none, because OpenAI rejects an empty list.
 * Throws a `model_bad_request` `ModelError` when `extra_body` names a reserved key.
 */
export function toChatCompletionParams(
  model: string,
  request: Pick<ModelRequest, 'messages' | 'tools' | 'sampling'>,
  options: ChatParamsOptions,
): ChatCompletionCreateParamsStreaming {
  const { sampling } = request;
  const params: ChatCompletionCreateParamsStreaming = {
    model,
    messages: toChatMessages(request.messages),
    stream: true,
    stream_options: { include_usage: true },
  };
  if (request.tools.length > 0) params.tools = toChatTools(request.tools);
  if (sampling.temperature !== undefined) params.temperature = sampling.temperature;
  if (sampling.top_p !== undefined) params.top_p = sampling.top_p;
  if (sampling.seed !== undefined) params.seed = sampling.seed;
  if (sampling.max_tokens !== undefined) params[options.maxTokensParam] = sampling.max_tokens;
  return mergeExtraBody(params, sampling.extra_body, CHAT_RESERVED_KEYS, options.vendor ?? OPENAI_VENDOR);
}

/**
 * The conversation as Chat Completions messages. System messages stay in place as `system`;
 * user images become data-URI `image_url` parts; assistant reasoning is not sent back (the API has
 * no slot for it, and DeepSeek-style servers reject `reasoning_content` in input). Tool messages
 * take only text, so a tool result's images are replaced by `[image: mime/type]` in its text and
 * sent in one `user` message right after the run of tool messages they belong to — OpenAI requires
 * the tool messages of a turn to follow the assistant message without a break. Past tool calls whose
 * arguments were not a JSON object are sent back with `{}` (see `replayableToolArguments`).
 */
export function toChatMessages(messages: readonly Message[]): ChatCompletionMessageParam[] {
  const out: ChatCompletionMessageParam[] = [];
  let toolImages: ChatCompletionContentPart[] = [];
  const flushToolImages = (): void => {
    if (toolImages.length === 0) return;
    out.push({ role: 'user', content: toolImages });
    toolImages = [];
  };
  for (const message of messages) {
    if (message.role !== 'tool') flushToolImages();
    switch (message.role) {
      case 'system':
        out.push({ role: 'system', content: message.content });
        break;
      case 'user':
        out.push({ role: 'user', content: toUserContent(message.content) });
        break;
      case 'assistant':
        out.push(toAssistantMessage(message));
        break;
      case 'tool': {
        out.push({ role: 'tool', tool_call_id: message.toolCallId, content: joinTextParts(message.content) });
        const images = message.content.filter((part) => part.type === 'image');
        if (images.length > 0) {
          toolImages.push({
            type: 'text',
            text: `Images returned by tool "${message.toolName}" (call ${message.toolCallId}):`,
          });
          for (const image of images) toolImages.push(toImagePart(image));
        }
        break;
      }
    }
  }
  flushToolImages();
  return out;
}

/** Tool definitions as Chat Completions function tools, with schemas sanitised for the API. */
export function toChatTools(tools: readonly ToolDefinition[]): ChatCompletionFunctionTool[] {
  return tools.map((tool) => ({
    type: 'function',
    function: { name: tool.name, description: tool.description, parameters: sanitizeToolSchema(tool.inputSchema) },
  }));
}

/** Text-only content goes as one string (every compatible server takes that); with images, as parts. */
function toUserContent(parts: readonly ContentPart[]): string | ChatCompletionContentPart[] {
  if (parts.every((part) => part.type === 'text')) return joinTextParts(parts);
  return parts.map((part) => (part.type === 'text' ? { type: 'text', text: part.text } : toImagePart(part)));
}

function toImagePart(part: Extract<ContentPart, { type: 'image' }>): ChatCompletionContentPartImage {
  return { type: 'image_url', image_url: { url: `data:${part.mimeType};base64,${part.data}` } };
}

function toAssistantMessage(message: Extract<Message, { role: 'assistant' }>): ChatCompletionAssistantMessageParam {
  if (message.toolCalls.length === 0) return { role: 'assistant', content: message.content };
  return {
    role: 'assistant',
    // OpenAI documents `null` content for a message that only calls tools.
    content: message.content === '' ? null : message.content,
    tool_calls: message.toolCalls.map((call) => ({
      id: call.id,
      type: 'function',
      function: { name: call.name, arguments: replayableToolArguments(call.arguments) },
    })),
  };
}
