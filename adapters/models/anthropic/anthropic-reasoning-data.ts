import { z } from 'zod';
import type { ReasoningBlock } from '../../../src/models/conversation.js';

/**
 * What the Anthropic adapter keeps in `ReasoningBlock.providerData` so the block can go back on the
 * next turn exactly as it came: Anthropic verifies a thinking block by its `signature` and rejects
 * a modified one, and a redacted block is only its opaque, encrypted `data`. The `vendor` tag keeps
 * blocks another adapter produced from being mistaken for ours.
 */
export const AnthropicReasoningDataSchema = z.discriminatedUnion('type', [
  z.object({ vendor: z.literal('anthropic'), type: z.literal('thinking'), signature: z.string() }),
  z.object({ vendor: z.literal('anthropic'), type: z.literal('redacted_thinking'), data: z.string() }),
]);
export type AnthropicReasoningData = z.infer<typeof AnthropicReasoningDataSchema>;

/** The Anthropic data of a reasoning block, or `undefined` for a block from another source. */
export function anthropicReasoningData(block: ReasoningBlock): AnthropicReasoningData | undefined {
  const parsed = AnthropicReasoningDataSchema.safeParse(block.providerData);
  return parsed.success ? parsed.data : undefined;
}
