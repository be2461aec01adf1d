import type {
  FunctionTool,
  ResponseCreateParamsStreaming,
  ResponseFunctionCallOutputItemList,
  ResponseInputItem,
  ResponseInputMessageContentList,
} from 'openai/resources/responses/responses';
import type { ContentPart, Message, ToolCall, ToolDefinition } from '../../../src/models/conversation.js';
import type { ModelRequest } from '../../../src/models/model.js';
import { joinTextParts } from '../common/join-text-parts.js';
import { mergeExtraBody } from '../common/merge-extra-body.js';
import { OPENAI_VENDOR } from '../common/openai-error-to-model-error.js';
import { sanitizeToolSchema } from '../common/sanitize-tool-schema.js';
import { replayableToolArguments } from '../common/tool-arguments-object.js';
import { type ResponsesReasoningData, responsesReasoningData } from './responses-reasoning-data.js';

/** Keys of the body the bridge sets itself and `extra_body` may not replace. */
export const RESPONSES_RESERVED_KEYS = ['model', 'input', 'tools', 'stream'] as const;

/** Options of {@link toResponsesInput}. */
export interface ResponsesInputOptions {
  /**
   * Whether the vendor keeps responses (`store`, true unless the caller sent `store: false`). A
   * reasoning item can only go back by id when it was stored, or with its `encrypted_content`.
   */
  store: boolean;
}

/**
 * The Responses API body for one streaming call: system messages joined into `instructions`, the
 * conversation as `input` items, function tools (non-strict, schemas sanitised), `temperature`,
 * `top_p`, `max_output_tokens` when set, and `extra_body` laid over the result verbatim (e.g.
 * `reasoning: {effort, summary}`, `include: ["reasoning.encrypted_content"]`, `store: false`).
 * `seed` is not sent: the API has none. Throws a `model_bad_request` `ModelError` when `extra_body`
 * names a reserved key.
 */
export function toResponsesParams(
  model: string,
  request: Pick<ModelRequest, 'messages' | 'tools' | 'sampling'>,
): ResponseCreateParamsStreaming {
  const { sampling } = request;
  const system = request.messages.flatMap((message) => (message.role === 'system' ? [message.content] : []));
  const params: ResponseCreateParamsStreaming = {
    model,
    input: toResponsesInput(request.messages, { store: sampling.extra_body?.store !== false }),
    stream: true,
  };
  if (system.length > 0) params.instructions = system.join('\n\n');
  if (request.tools.length > 0) params.tools = toResponsesTools(request.tools);
  if (sampling.temperature !== undefined) params.temperature = sampling.temperature;
  if (sampling.top_p !== undefined) params.top_p = sampling.top_p;
  if (sampling.max_tokens !== undefined) params.max_output_tokens = sampling.max_tokens;
  return mergeExtraBody(params, sampling.extra_body, RESPONSES_RESERVED_KEYS, OPENAI_VENDOR);
}

/**
 * The conversation as Responses `input` items (system messages are left to `instructions`). User
 * images become data-URI `input_image`s; tool results become `function_call_output`s, images kept
 * (the API takes them there). An assistant turn sends back each reasoning item this adapter
 * produced that can go back — stored by the vendor (`options.store`) or carrying
 * `encrypted_content` — immediately followed by the message and function calls that followed it,
 * *with their item ids*, as the API requires; everything else of the turn follows as plain items
 * without ids. Reasoning that cannot go back is dropped, and with it the need for ids.
 */
export function toResponsesInput(messages: readonly Message[], options: ResponsesInputOptions): ResponseInputItem[] {
  const out: ResponseInputItem[] = [];
  for (const message of messages) {
    switch (message.role) {
      case 'system':
        break;
      case 'user':
        out.push({ type: 'message', role: 'user', content: toInputContent(message.content) });
        break;
      case 'assistant':
        out.push(...toAssistantItems(message, options));
        break;
      case 'tool':
        out.push({ type: 'function_call_output', call_id: message.toolCallId, output: toToolOutput(message.content) });
        break;
    }
  }
  return out;
}

/** Tool definitions as Responses function tools (non-strict), with schemas sanitised for the API. */
export function toResponsesTools(tools: readonly ToolDefinition[]): FunctionTool[] {
  return tools.map((tool) => ({
    type: 'function',
    name: tool.name,
    description: tool.description,
    parameters: sanitizeToolSchema(tool.inputSchema),
    strict: false,
  }));
}

function toAssistantItems(
  message: Extract<Message, { role: 'assistant' }>,
  options: ResponsesInputOptions,
): ResponseInputItem[] {
  const items: ResponseInputItem[] = [];
  const sentCalls = new Set<string>();
  let sentText = message.content === '';
  for (const block of message.reasoning) {
    const data = responsesReasoningData(block);
    if (data === undefined || !(options.store || data.item.encrypted_content !== undefined)) continue;
    const following: ResponseInputItem[] = [];
    for (const next of data.following) {
      if (next.type === 'message' && !sentText) {
        following.push({
          type: 'message',
          id: next.id,
          role: 'assistant',
          status: 'completed',
          content: [{ type: 'output_text', text: message.content, annotations: [] }],
        });
        sentText = true;
      } else if (next.type === 'function_call' && !sentCalls.has(next.callId)) {
        const call = message.toolCalls.find((candidate) => candidate.id === next.callId);
        if (call === undefined) continue;
        following.push(toFunctionCall(call, next.id));
        sentCalls.add(call.id);
      }
    }
    // A reasoning item without the item that followed it is a 400; leave both out instead.
    if (following.length === 0) continue;
    items.push(toReasoningItem(data), ...following);
  }
  if (!sentText) items.push({ type: 'message', role: 'assistant', content: message.content });
  for (const call of message.toolCalls) if (!sentCalls.has(call.id)) items.push(toFunctionCall(call, undefined));
  return items;
}

function toReasoningItem(data: ResponsesReasoningData): ResponseInputItem {
  return {
    type: 'reasoning',
    id: data.item.id,
    summary: data.item.summary,
    ...(data.item.encrypted_content === undefined ? {} : { encrypted_content: data.item.encrypted_content }),
  };
}

function toFunctionCall(call: ToolCall, itemId: string | undefined): ResponseInputItem {
  return {
    type: 'function_call',
    ...(itemId === undefined ? {} : { id: itemId }),
    call_id: call.id,
    name: call.name,
    arguments: replayableToolArguments(call.arguments),
  };
}

function toInputContent(parts: readonly ContentPart[]): ResponseInputMessageContentList {
  return parts.map((part) =>
    part.type === 'text'
      ? { type: 'input_text', text: part.text }
      : { type: 'input_image', image_url: `data:${part.mimeType};base64,${part.data}`, detail: 'auto' },
  );
}

/** Text-only output goes as one string; with images, as a list of input parts. */
function toToolOutput(parts: readonly ContentPart[]): string | ResponseFunctionCallOutputItemList {
  if (parts.every((part) => part.type === 'text')) return joinTextParts(parts);
  return parts.map((part) =>
    part.type === 'text'
      ? { type: 'input_text', text: part.text }
      : { type: 'input_image', image_url: `data:${part.mimeType};base64,${part.data}`, detail: 'auto' },
  );
}
