import { z } from 'zod';
import { MessageContentSchema } from './run-request.js';

/**
 * The body of `POST /v1/runs/:id/messages` (docs/protocol.md §7): a person's message for the model,
 * as text or OpenAI-style parts. Strict; text that is empty or only blanks is refused.
 */
export const MessageRequestSchema = z.strictObject({
  content: MessageContentSchema.refine(
    (content) => typeof content !== 'string' || content.trim() !== '',
    'content is empty: send the text of the message',
  ),
});
/** A person's message for a running run. */
export type MessageRequest = z.infer<typeof MessageRequestSchema>;
