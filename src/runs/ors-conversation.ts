import type { ContentPart, Message, ToolDefinition } from '../models/conversation.js';
import type { Block, ToolSpec } from '../ors/ors-schemas.js';
import type { InputMessage, MessageContent } from '../protocol/run-request.js';

/**
 * Conversions from what ORS and callers send to the provider-neutral conversation. Pure functions;
 * the model adapters take it from there.
 */

/** ORS prompt or tool-result blocks → content parts (text and base64 images, in order). */
export function blocksToContent(blocks: readonly Block[]): ContentPart[] {
  return blocks.map((block) =>
    block.type === 'text'
      ? { type: 'text', text: block.text }
      : { type: 'image', mimeType: block.mimeType, data: block.data },
  );
}

/** The text of blocks, joined by newlines; images appear as `[image: mime/type]`. */
export function blocksToText(blocks: readonly Block[]): string {
  return blocks.map((block) => (block.type === 'text' ? block.text : `[image: ${block.mimeType}]`)).join('\n');
}

/**
 * An ORS tool spec → a model tool definition. ORS allows a null `input_schema` for tools without
 * input; every provider wants an object schema, so null becomes one with no properties.
 */
export function toolSpecToDefinition(spec: ToolSpec): ToolDefinition {
  const schema = spec.input_schema ?? { type: 'object', properties: {} };
  return {
    name: spec.name,
    description: spec.description,
    inputSchema: schema.type === undefined ? { type: 'object', ...schema } : schema,
  };
}

const DATA_URI = /^data:([^;,]+);base64,(.*)$/s;

/** OpenAI-style message content (text, or `text` / `image_url` parts) → content parts. */
export function contentToParts(content: MessageContent): ContentPart[] {
  if (typeof content === 'string') return [{ type: 'text', text: content }];
  return content.map((part): ContentPart => {
    if (part.type === 'text') return { type: 'text', text: part.text };
    const match = DATA_URI.exec(part.image_url.url);
    // The request schemas admit only data: URIs, so a match is guaranteed here.
    return { type: 'image', mimeType: match?.[1] ?? 'application/octet-stream', data: match?.[2] ?? '' };
  });
}

/** The caller's extra turns (`input` of `POST /v1/runs`, OpenAI-style) → conversation messages. */
export function inputToMessages(input: string | readonly InputMessage[] | undefined): Message[] {
  if (input === undefined) return [];
  if (typeof input === 'string') return [{ role: 'user', content: [{ type: 'text', text: input }] }];
  return input.map((message): Message => {
    const parts = contentToParts(message.content);
    switch (message.role) {
      case 'system':
      case 'developer':
        return { role: 'system', content: partsToText(parts) };
      case 'assistant':
        return { role: 'assistant', content: partsToText(parts), reasoning: [], toolCalls: [] };
      case 'user':
        return { role: 'user', content: parts };
    }
  });
}

function partsToText(parts: readonly ContentPart[]): string {
  return parts.map((part) => (part.type === 'text' ? part.text : '')).join('');
}

const PREVIEW_CHARS = 120;

/**
 * A one-line preview of a tool call for progress displays: the sole string argument as is
 * (a command, a path, an expression), otherwise compact JSON; cut at 120 characters.
 */
export function toolPreview(args: Record<string, unknown>): string {
  const values = Object.values(args);
  const text = values.length === 1 && typeof values[0] === 'string' ? values[0] : JSON.stringify(args);
  const line = text.replace(/\s+/g, ' ').trim();
  return line.length > PREVIEW_CHARS ? `${line.slice(0, PREVIEW_CHARS - 1)}…` : line;
}
