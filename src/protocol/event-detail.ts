import { z } from 'zod';
import {
  ContentPartSchema,
  ConversationMessageSchema,
  ModelToolCallSchema,
  ReasoningBlockSchema,
  TokenDataSchema,
  ToolDefinitionSchema,
} from './conversation-schema.js';
import { RewardReductionSchema, SamplingSchema } from './run-request.js';

/**
 * The detail of a log entry: what the log keeps beside a published event so that the log alone
 * rebuilds the run's whole record — the conversation as the model saw it, the tools, whole tool
 * results, token data, sampling and timing. It is stored with the event and never sent: every
 * stream format and the events page serve the event alone, so clients see the same events as
 * before, and tool outputs cut for streaming stay cut there (`docs/events.md`, "The record").
 */

/** Where the conversation starts, once the prompt and tools are read: on the first entry written after that. */
export const RunContextSchema = z.object({
  /** The conversation the first model call is sent: instructions, the environment's prompt, the caller's input. */
  messages: z.array(ConversationMessageSchema),
  tools: z.array(ToolDefinitionSchema),
  sampling: SamplingSchema,
  max_turns: z.number().int().positive(),
  reward_reduction: RewardReductionSchema,
});
export type RunContext = z.infer<typeof RunContextSchema>;

/** On `turn.completed`: what the model returned besides the text its `message.delta`s streamed. */
export const TurnDetailSchema = z.object({
  /** Whole reasoning blocks, with any provider state the next turn sends back. */
  reasoning: z.array(ReasoningBlockSchema),
  /** Every tool call of the turn, in order, arguments as the model wrote them (also calls never run). */
  tool_calls: z.array(ModelToolCallSchema),
  /** The provider's own finish reason (e.g. `end_turn`), when it gave one. */
  raw_finish_reason: z.string().optional(),
  token_data: TokenDataSchema.optional(),
  /** Time spent on this model call. */
  duration_ms: z.number().nonnegative(),
});
export type TurnDetail = z.infer<typeof TurnDetailSchema>;

/**
 * On the `tool.completed` of a call whose tool returned a result. `content` is absent when the
 * result is exactly one text block equal to the event's (uncut) `output`.
 */
export const ToolDetailSchema = z.object({
  /** The result's `metadata` as the environment sent it, or null. */
  metadata: z.record(z.string(), z.unknown()).nullable(),
  content: z.array(ContentPartSchema).optional(),
  /**
   * True when the result was longer than `RUNBRIDGE_TOOL_OUTPUT_STORED_CHARS` (docs/protocol.md §1.7):
   * `content` holds it cut there, and ends with a note that says so.
   */
  truncated: z.literal(true).optional(),
});
export type ToolDetail = z.infer<typeof ToolDetailSchema>;

/** On the terminal event of a run that began (opened, or tried to open, its session): where its time went. */
export const RunTimingSchema = z.object({
  /** Time spent waiting on the model, failed calls included. */
  model_ms: z.number().nonnegative(),
  /** Time spent in ORS: session set-up, prompt, tools, calls and teardown. */
  env_ms: z.number().nonnegative(),
});
export type RunTiming = z.infer<typeof RunTimingSchema>;

/**
 * On the `tool.approval_resolved` of a client's decision: which decision it was, so the request that
 * sent it — on whichever instance — learns whether it was the first (docs/protocol.md §7).
 */
export const ApprovalDetailSchema = z.object({ decision_id: z.string() });
export type ApprovalDetail = z.infer<typeof ApprovalDetailSchema>;

export const EventDetailSchema = z.object({
  context: RunContextSchema.optional(),
  turn: TurnDetailSchema.optional(),
  tool: ToolDetailSchema.optional(),
  timing: RunTimingSchema.optional(),
  approval: ApprovalDetailSchema.optional(),
});
export type EventDetail = z.infer<typeof EventDetailSchema>;
