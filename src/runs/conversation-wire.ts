import type { ContentPart, Message, ReasoningBlock, ToolCall, ToolDefinition } from '../models/conversation.js';
import type { PromptRenderer, TokenData } from '../models/model.js';
import type {
  ContentPartWire,
  ConversationMessageWire,
  PromptRendererWire,
  ReasoningBlockWire,
  TokenDataWire,
  ToolDefinitionWire,
} from '../protocol/conversation-schema.js';

/**
 * The provider-neutral conversation ⇄ its wire form in the record events (`run.context`,
 * `turn.output`, `tool.output`). Pure and lossless both ways, so a conversation rebuilt from a
 * replayed log equals the one the model was sent. Keys whose value is absent are left out, never
 * set to undefined, so a live record and a replayed one compare equal.
 */

export function partsToWire(parts: readonly ContentPart[]): ContentPartWire[] {
  return parts.map((part) =>
    part.type === 'text'
      ? { type: 'text', text: part.text }
      : { type: 'image', mime_type: part.mimeType, data: part.data },
  );
}

export function partsFromWire(parts: readonly ContentPartWire[]): ContentPart[] {
  return parts.map((part) =>
    part.type === 'text'
      ? { type: 'text', text: part.text }
      : { type: 'image', mimeType: part.mime_type, data: part.data },
  );
}

export function reasoningToWire(blocks: readonly ReasoningBlock[]): ReasoningBlockWire[] {
  return blocks.map((block) =>
    block.providerData === undefined ? { text: block.text } : { text: block.text, provider_data: block.providerData },
  );
}

export function reasoningFromWire(blocks: readonly ReasoningBlockWire[]): ReasoningBlock[] {
  return blocks.map((block) =>
    block.provider_data === undefined ? { text: block.text } : { text: block.text, providerData: block.provider_data },
  );
}

function toolCallsCopy(calls: readonly ToolCall[]): ToolCall[] {
  return calls.map((call) => ({ id: call.id, name: call.name, arguments: call.arguments }));
}

export function messageToWire(message: Message): ConversationMessageWire {
  switch (message.role) {
    case 'system':
      return { role: 'system', content: message.content };
    case 'user':
      return { role: 'user', content: partsToWire(message.content) };
    case 'assistant':
      return {
        role: 'assistant',
        content: message.content,
        reasoning: reasoningToWire(message.reasoning),
        tool_calls: toolCallsCopy(message.toolCalls),
      };
    case 'tool':
      return {
        role: 'tool',
        tool_call_id: message.toolCallId,
        tool_name: message.toolName,
        content: partsToWire(message.content),
        is_error: message.isError,
        ...(message.editedArguments === undefined ? {} : { edited_arguments: message.editedArguments }),
      };
  }
}

export function messageFromWire(message: ConversationMessageWire): Message {
  switch (message.role) {
    case 'system':
      return { role: 'system', content: message.content };
    case 'user':
      return { role: 'user', content: partsFromWire(message.content) };
    case 'assistant':
      return {
        role: 'assistant',
        content: message.content,
        reasoning: reasoningFromWire(message.reasoning),
        toolCalls: toolCallsCopy(message.tool_calls),
      };
    case 'tool':
      return {
        role: 'tool',
        toolCallId: message.tool_call_id,
        toolName: message.tool_name,
        content: partsFromWire(message.content),
        isError: message.is_error,
        ...(message.edited_arguments === undefined ? {} : { editedArguments: message.edited_arguments }),
      };
  }
}

export function toolToWire(tool: ToolDefinition): ToolDefinitionWire {
  return { name: tool.name, description: tool.description, input_schema: tool.inputSchema };
}

export function toolFromWire(tool: ToolDefinitionWire): ToolDefinition {
  return { name: tool.name, description: tool.description, inputSchema: tool.input_schema };
}

export function tokenDataToWire(data: TokenData): TokenDataWire {
  return {
    ...(data.promptTokenIds === undefined ? {} : { prompt_token_ids: data.promptTokenIds }),
    ...(data.tokenIds === undefined ? {} : { token_ids: data.tokenIds }),
    ...(data.logprobs === undefined ? {} : { logprobs: data.logprobs }),
    ...(data.raw === undefined ? {} : { logprobs_raw: data.raw }),
    ...(data.newSequence === undefined ? {} : { new_sequence: { reason: data.newSequence.reason } }),
    ...(data.renderer === undefined ? {} : { renderer: rendererToWire(data.renderer) }),
  };
}

function rendererToWire(renderer: PromptRenderer): PromptRendererWire {
  return {
    model: renderer.model,
    template_fingerprint: renderer.templateFingerprint,
    chat_template_kwargs: renderer.chatTemplateKwargs,
    reasoning_parser: renderer.reasoningParser,
    tool_parser: renderer.toolParser,
  };
}

export function tokenDataFromWire(data: TokenDataWire): TokenData {
  return {
    ...(data.prompt_token_ids === undefined ? {} : { promptTokenIds: data.prompt_token_ids }),
    ...(data.token_ids === undefined ? {} : { tokenIds: data.token_ids }),
    ...(data.logprobs === undefined ? {} : { logprobs: data.logprobs }),
    ...(data.logprobs_raw === undefined ? {} : { raw: data.logprobs_raw }),
    ...(data.new_sequence === undefined ? {} : { newSequence: { reason: data.new_sequence.reason } }),
    ...(data.renderer === undefined
      ? {}
      : {
          renderer: {
            model: data.renderer.model,
            templateFingerprint: data.renderer.template_fingerprint,
            chatTemplateKwargs: data.renderer.chat_template_kwargs,
            reasoningParser: data.renderer.reasoning_parser,
            toolParser: data.renderer.tool_parser,
          },
        }),
  };
}
