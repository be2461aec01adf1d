import { z } from 'zod';
import { RunEventSchema, StopReasonSchema, ToolCompletedEventSchema } from './run-events.js';

/**
 * What the OpenAI-compatible doors answer (docs/protocol.md §3.2, §4.2): `chat.completion.chunk` frames of
 * `format=openai` and a streaming chat completion, and the `chat.completion` of a non-streaming one.
 * Only the fields the bridge fills are here; they are named and shaped as OpenAI's, so OpenAI SDKs
 * read them unchanged.
 */

export const ChatUsageSchema = z.object({
  prompt_tokens: z.number().int().nonnegative(),
  completion_tokens: z.number().int().nonnegative(),
  total_tokens: z.number().int().nonnegative(),
});
export type ChatUsage = z.infer<typeof ChatUsageSchema>;

/** `stop` for a run that ended by itself, `length` for one cut at `max_turns`. */
export const ChatFinishReasonSchema = z.enum(['stop', 'length']);
export type ChatFinishReason = z.infer<typeof ChatFinishReasonSchema>;

/** A tool call the model made; the bridge has already run it over ORS. */
export const ChatToolCallSchema = z.object({
  id: z.string(),
  type: z.literal('function'),
  function: z.object({ name: z.string(), arguments: z.string() }),
});
export type ChatToolCall = z.infer<typeof ChatToolCallSchema>;

/**
 * A tool call in a chunk, at its run-wide `index`: its first chunk names it (`id`, `type`, the
 * function's `name`) with the start of its arguments, later chunks add to `function.arguments`;
 * a call that did not stream comes whole in one chunk.
 */
export const ChatToolCallDeltaSchema = z.object({
  index: z.number().int().nonnegative(),
  id: z.string().optional(),
  type: z.literal('function').optional(),
  function: z.object({ name: z.string().optional(), arguments: z.string() }),
});
export type ChatToolCallDelta = z.infer<typeof ChatToolCallDeltaSchema>;

export const ChatDeltaSchema = z.object({
  role: z.literal('assistant').optional(),
  content: z.string().optional(),
  /** Reasoning text, in the field vLLM and DeepSeek use for it. */
  reasoning_content: z.string().optional(),
  tool_calls: z.array(ChatToolCallDeltaSchema).optional(),
});
export type ChatDelta = z.infer<typeof ChatDeltaSchema>;

/** What every chunk and completion of one run shares: the completion id, when the run was created, its model. */
const completionHead = {
  id: z.string(),
  /** Epoch seconds. */
  created: z.number().int(),
  model: z.string(),
};

export const ChatCompletionChunkSchema = z.object({
  ...completionHead,
  object: z.literal('chat.completion.chunk'),
  /** One choice, or none in the usage chunk and in `agent_event` chunks. */
  choices: z
    .array(
      z.object({
        index: z.literal(0),
        delta: ChatDeltaSchema,
        logprobs: z.null(),
        finish_reason: ChatFinishReasonSchema.nullable(),
      }),
    )
    .max(1),
  usage: ChatUsageSchema.optional(),
  /** With `?agent_events=1`: the typed event this chunk carries (docs/protocol.md §3.2). */
  agent_event: RunEventSchema.optional(),
});
export type ChatCompletionChunk = z.infer<typeof ChatCompletionChunkSchema>;

export const ChatCompletionMessageSchema = z.object({
  role: z.literal('assistant'),
  /** All the assistant text of the episode, turns separated by a blank line; null when there was none. */
  content: z.string().nullable(),
  refusal: z.null(),
  reasoning_content: z.string().optional(),
  /** Every tool call of the episode, in order; absent when there was none. */
  tool_calls: z.array(ChatToolCallSchema).optional(),
});
export type ChatCompletionMessage = z.infer<typeof ChatCompletionMessageSchema>;

/** What one tool call returned when the bridge ran it: its `tool.completed` event without the envelope. */
export const ChatToolResultSchema = ToolCompletedEventSchema.pick({
  tool_call_id: true,
  tool: true,
  output: true,
  truncated: true,
  error: true,
  error_message: true,
  reward: true,
  finished: true,
  duration: true,
});
export type ChatToolResult = z.infer<typeof ChatToolResultSchema>;

/**
 * `runbridge`, our extension field of a non-streaming `chat.completion` (docs/api.md): what an
 * OpenAI message has no place for — each tool call's result and the episode's reward — so a plain
 * client needs no second request. OpenAI SDKs keep unknown fields (`completion.runbridge` in Node,
 * `completion.model_extra["runbridge"]` in Python).
 */
export const ChatEpisodeSchema = z.object({
  run_id: z.string(),
  /** The run's reward (its `reward_reduction` of the tool rewards), null when no tool gave one. */
  reward: z.number().nullable(),
  finished: z.boolean(),
  stop_reason: StopReasonSchema,
  turns: z.number().int().nonnegative(),
  /** One per tool call, in the order of `message.tool_calls` (same `tool_call_id`s). */
  tool_results: z.array(ChatToolResultSchema),
});
export type ChatEpisode = z.infer<typeof ChatEpisodeSchema>;

export const ChatCompletionSchema = z.object({
  ...completionHead,
  object: z.literal('chat.completion'),
  choices: z
    .array(
      z.object({
        index: z.literal(0),
        message: ChatCompletionMessageSchema,
        logprobs: z.null(),
        finish_reason: ChatFinishReasonSchema,
      }),
    )
    .length(1),
  usage: ChatUsageSchema,
  runbridge: ChatEpisodeSchema,
});
export type ChatCompletion = z.infer<typeof ChatCompletionSchema>;
