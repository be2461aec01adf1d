import { z } from 'zod';
import type { ReasoningBlock } from '../../../src/models/conversation.js';

/** An output item that followed a reasoning item in the same response, by its id. */
export const ResponsesFollowingItemSchema = z.discriminatedUnion('type', [
  z.object({ type: z.literal('message'), id: z.string() }),
  z.object({ type: z.literal('function_call'), id: z.string(), callId: z.string() }),
]);
export type ResponsesFollowingItem = z.infer<typeof ResponsesFollowingItemSchema>;

/**
 * What the Responses adapter keeps in `ReasoningBlock.providerData` to send a reasoning item back:
 * the item itself (`id`, `summary`, and `encrypted_content` when the caller asked for it), and the
 * ids of the output items that followed it up to the next reasoning item. The API accepts a
 * reasoning item in `input` only when the item that followed it comes next *with its id* (else 400
 * "provided without its required following item"), and `ToolCall` carries only the call id — so the
 * item ids travel here. The `vendor` tag keeps blocks another adapter produced from being mistaken
 * for ours.
 */
export const ResponsesReasoningDataSchema = z.object({
  vendor: z.literal('openai-responses'),
  item: z.object({
    id: z.string(),
    summary: z.array(z.object({ type: z.literal('summary_text'), text: z.string() })),
    encrypted_content: z.string().optional(),
  }),
  following: z.array(ResponsesFollowingItemSchema),
});
export type ResponsesReasoningData = z.infer<typeof ResponsesReasoningDataSchema>;

/** The Responses data of a reasoning block, or `undefined` for a block from another source. */
export function responsesReasoningData(block: ReasoningBlock): ResponsesReasoningData | undefined {
  const parsed = ResponsesReasoningDataSchema.safeParse(block.providerData);
  return parsed.success ? parsed.data : undefined;
}
