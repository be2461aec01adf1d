import { z } from 'zod';

/**
 * The conversation as the model sees it, on the wire: what `run.context`, `turn.output` and
 * `tool.output` carry so that a run's log alone rebuilds its record (`docs/events.md`, "The record
 * events"). Lossless: replaying these gives back the exact messages and tools the model was sent.
 */

/** A piece of user or tool content: text, or an image as base64 with its MIME type. */
export const ContentPartSchema = z.discriminatedUnion('type', [
  z.object({ type: z.literal('text'), text: z.string() }),
  z.object({ type: z.literal('image'), mime_type: z.string(), data: z.string() }),
]);
export type ContentPartWire = z.infer<typeof ContentPartSchema>;

/**
 * A block of model reasoning. `provider_data` is opaque state the producing provider needs to be
 * sent back on the next turn (a thinking signature, an encrypted reasoning item); absent when none.
 */
export const ReasoningBlockSchema = z.object({
  text: z.string(),
  provider_data: z.unknown().optional(),
});
export type ReasoningBlockWire = z.infer<typeof ReasoningBlockSchema>;

/** A tool call as the model made it; `arguments` is the raw text it produced, valid JSON or not. */
export const ModelToolCallSchema = z.object({
  id: z.string(),
  name: z.string(),
  arguments: z.string(),
});
export type ModelToolCallWire = z.infer<typeof ModelToolCallSchema>;

export const ConversationMessageSchema = z.discriminatedUnion('role', [
  z.object({ role: z.literal('system'), content: z.string() }),
  z.object({ role: z.literal('user'), content: z.array(ContentPartSchema) }),
  z.object({
    role: z.literal('assistant'),
    content: z.string(),
    reasoning: z.array(ReasoningBlockSchema),
    tool_calls: z.array(ModelToolCallSchema),
  }),
  z.object({
    role: z.literal('tool'),
    tool_call_id: z.string(),
    tool_name: z.string(),
    content: z.array(ContentPartSchema),
    is_error: z.boolean(),
    /** The arguments the call ran with when a person's approval changed them; absent otherwise. */
    edited_arguments: z.record(z.string(), z.unknown()).optional(),
  }),
]);
export type ConversationMessageWire = z.infer<typeof ConversationMessageSchema>;

/** A tool offered to the model; `input_schema` is always a JSON Schema object. */
export const ToolDefinitionSchema = z.object({
  name: z.string(),
  description: z.string(),
  input_schema: z.record(z.string(), z.unknown()),
});
export type ToolDefinitionWire = z.infer<typeof ToolDefinitionSchema>;

/**
 * What turned a conversation into prompt ids: the model as the server names it, a hash of the ids its
 * tokenizer and chat template give a fixed probe conversation, the template's kwargs, and the parsers
 * that read the completions (by vLLM's names).
 */
export const PromptRendererSchema = z.object({
  model: z.string(),
  template_fingerprint: z.string(),
  chat_template_kwargs: z.record(z.string(), z.unknown()),
  reasoning_parser: z.string(),
  tool_parser: z.string(),
});
export type PromptRendererWire = z.infer<typeof PromptRendererSchema>;

/** Per-token data some model servers return (vLLM `return_token_ids`, OpenAI-style `logprobs`). */
export const TokenDataSchema = z.object({
  prompt_token_ids: z.array(z.number()).optional(),
  token_ids: z.array(z.number()).optional(),
  logprobs: z.array(z.number()).optional(),
  /** The provider's raw logprobs content, when it is richer than one number per token. */
  logprobs_raw: z.unknown().optional(),
  /** This turn's prompt does not continue the previous turn's prompt and completion: why (docs/trajectory.md). */
  new_sequence: z.object({ reason: z.string() }).optional(),
  /** The server's tokenizer, chat template and parsers behind the ids (the `vllm` provider's). */
  renderer: PromptRendererSchema.optional(),
});
export type TokenDataWire = z.infer<typeof TokenDataSchema>;
