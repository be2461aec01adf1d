import type { Message } from '../../../../src/models/conversation.js';
import type { ModelPart } from '../../../../src/models/model.js';

/** Every part of a model stream, in order; rejects as the stream rejects. */
export async function collectParts(stream: AsyncIterable<ModelPart>): Promise<ModelPart[]> {
  const parts: ModelPart[] = [];
  for await (const part of stream) parts.push(part);
  return parts;
}

/** What a stream rejects with (fails the test when it resolves), with the parts seen before. */
export async function collectFailure(
  stream: AsyncIterable<ModelPart>,
): Promise<{ error: unknown; parts: ModelPart[] }> {
  const parts: ModelPart[] = [];
  try {
    for await (const part of stream) parts.push(part);
  } catch (error) {
    return { error, parts };
  }
  throw new Error(`Expected the stream to fail, but it ended normally after ${parts.length} parts.`);
}

/** The assistant message the orchestrator records from a turn's parts. */
export function assistantFrom(parts: readonly ModelPart[]): Extract<Message, { role: 'assistant' }> {
  return {
    role: 'assistant',
    content: parts.map((part) => (part.type === 'text-delta' ? part.delta : '')).join(''),
    reasoning: parts.flatMap((part) => (part.type === 'reasoning' ? [part.block] : [])),
    toolCalls: parts.flatMap((part) => (part.type === 'tool-call' ? [part.call] : [])),
  };
}
