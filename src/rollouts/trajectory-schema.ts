import { z } from 'zod';
import { ChatToolCallSchema } from '../protocol/chat-completion.js';
import { PromptRendererSchema } from '../protocol/conversation-schema.js';
import {
  ApprovalDeciderSchema,
  ApprovalDecisionSchema,
  FinishReasonSchema,
  StopReasonSchema,
  ToolRewardSchema,
} from '../protocol/run-events.js';
import { RewardReductionSchema, SamplingSchema } from '../protocol/run-request.js';

/**
 * One line of a rollout JSONL file: everything a trainer needs about one finished episode, with the
 * conversation in OpenAI chat format. `docs/trajectory.md` documents every field; bump
 * {@link TRAJECTORY_SCHEMA_VERSION} on any change a reader could trip over.
 */

/** The version every record carries in `schema_version`. */
export const TRAJECTORY_SCHEMA_VERSION = 1;

/** A part of user or tool content: text, or an image as a data URI. */
const ChatContentPartSchema = z.discriminatedUnion('type', [
  z.object({ type: z.literal('text'), text: z.string() }),
  z.object({ type: z.literal('image_url'), image_url: z.object({ url: z.string() }) }),
]);
export type ChatContentPart = z.infer<typeof ChatContentPartSchema>;

/** Text-only content is one string; content with images is a list of parts. */
const ChatContentSchema = z.union([z.string(), z.array(ChatContentPartSchema)]);

/**
 * How a person decided about a tool call that waited for approval (docs/protocol.md §7): on the
 * call's `tool` message and its step's `tool_calls` entry. A denied call never ran: its `tool`
 * message is the denial the model was told.
 */
const ApprovalMarkSchema = z.object({
  decision: ApprovalDecisionSchema,
  /** `client` (a person), `timeout` (no one decided in time) or `cancel` (the run stopped while it waited). */
  by: ApprovalDeciderSchema,
  reason: z.string().optional(),
  /** True when a person changed the arguments; the step's `approval.arguments` holds what ran. */
  edited: z.boolean(),
});

/**
 * An OpenAI chat message; assistant reasoning rides in `reasoning_content`, as vLLM and DeepSeek
 * write it. A person's marks, present only where a person took part: `origin: "human"` and
 * `message_id` on a user message a person sent while the episode ran, `approval` on the result of a
 * call that waited for a decision.
 */
export const ChatMessageSchema = z.discriminatedUnion('role', [
  z.object({ role: z.literal('system'), content: z.string() }),
  z.object({
    role: z.literal('user'),
    content: ChatContentSchema,
    origin: z.literal('human').optional(),
    message_id: z.string().optional(),
  }),
  z.object({
    role: z.literal('assistant'),
    /** Null for a message that only calls tools, as OpenAI writes it. */
    content: z.string().nullable(),
    reasoning_content: z.string().optional(),
    /** Each call's `arguments` is the raw text the model produced, even when it is not valid JSON. */
    tool_calls: z.array(ChatToolCallSchema).min(1).optional(),
  }),
  z.object({
    role: z.literal('tool'),
    tool_call_id: z.string(),
    content: ChatContentSchema,
    approval: ApprovalMarkSchema.optional(),
  }),
]);
export type ChatMessage = z.infer<typeof ChatMessageSchema>;

/** A tool offered to the model, as an OpenAI function tool (the schema exactly as the environment gave it). */
const ChatToolSchema = z.object({
  type: z.literal('function'),
  function: z.object({ name: z.string(), description: z.string(), parameters: z.record(z.string(), z.unknown()) }),
});
export type ChatTool = z.infer<typeof ChatToolSchema>;

const nonNegative = z.number().nonnegative();
const count = z.number().int().nonnegative();

/** How one tool call of a step went; its output is the `tool` message with the same `tool_call_id`. */
const StepToolCallSchema = z.object({
  tool_call_id: z.string(),
  name: z.string(),
  reward: z.number().nullable(),
  finished: z.boolean(),
  error: z.boolean(),
  error_message: z.string().nullable(),
  /** The tool output's `metadata` from the environment; null when it sent none or the call failed. */
  metadata: z.record(z.string(), z.unknown()).nullable(),
  duration_ms: nonNegative,
  /** Present when the call waited for approval: the decision, and the arguments it ran with. */
  approval: ApprovalMarkSchema.extend({
    approval_id: z.string(),
    arguments: z.record(z.string(), z.unknown()),
  }).optional(),
});

/** One model turn and the tool calls it made. Token data is null where the model server returned none. */
const TrajectoryStepSchema = z.object({
  turn: z.number().int().positive(),
  finish_reason: FinishReasonSchema,
  /** The provider's own finish reason, e.g. `end_turn`; null when it gave none. */
  raw_finish_reason: z.string().nullable(),
  usage: z.object({ input_tokens: count, output_tokens: count, total_tokens: count }),
  /** The step's tool-call rewards reduced with the record's `reward_reduction`; null when none scored. */
  reward: z.number().nullable(),
  tool_calls: z.array(StepToolCallSchema),
  /** The messages a person sent that this turn read first (their `message_id`s); present when any. */
  user_message_ids: z.array(z.string()).optional(),
  prompt_token_ids: z.array(z.number()).nullable(),
  token_ids: z.array(z.number()).nullable(),
  logprobs: z.array(z.number()).nullable(),
  /** The provider's raw logprobs content, when it is richer than one number per token. */
  logprobs_raw: z.unknown(),
  /**
   * Present when this turn's prompt was rendered afresh instead of continuing the previous turn's
   * prompt and completion: a trainer starts a new token sequence here (docs/trajectory.md, "Token data").
   */
  new_sequence: z.object({ reason: z.string() }).optional(),
  model_ms: nonNegative,
});
export type TrajectoryStep = z.infer<typeof TrajectoryStepSchema>;

/** `completed` episodes ran to a stop condition; `failed` ones hit an error or their time limit. */
const TrajectoryStatusSchema = z.enum(['completed', 'failed']);
export type TrajectoryStatus = z.infer<typeof TrajectoryStatusSchema>;

/**
 * What ended the episode: a run's stop reason, `error`, `timeout` (the per-rollout time limit), or
 * `context_exceeded` (the next prompt would not fit the model's context).
 */
const TrajectoryStopReasonSchema = z.union([StopReasonSchema, z.enum(['error', 'timeout', 'context_exceeded'])]);
export type TrajectoryStopReason = z.infer<typeof TrajectoryStopReasonSchema>;

/** One JSONL line: a finished episode, completed or failed (`docs/trajectory.md` explains every field). */
export const TrajectoryRecordSchema = z.object({
  schema_version: z.literal(TRAJECTORY_SCHEMA_VERSION),
  /** Unique per written record (a retried episode gets a new one). */
  rollout_id: z.string().min(1),
  /** The `rollout_id` of the service batch (`POST /v1/rollouts`) that played it; absent from a local batch's records. */
  batch_id: z.string().min(1).optional(),
  /** The batch's `policy_version`: which weights produced the record; present when the batch named one. */
  policy_version: z.string().min(1).optional(),
  /** The same for every sample of one task: `<env>/<split>/<index>`. */
  group_id: z.string().min(1),
  sample_index: count,
  /** 1 for a first attempt; n when n − 1 earlier attempts of this (task, sample) failed in the same run. */
  attempt: z.number().int().positive(),
  task: z.object({
    env: z.string(),
    split: z.string(),
    index: count,
    /** The task object as the ORS server lists it (`/{env}/task_range`); null when it could not be read. */
    spec: z.unknown(),
  }),
  model: z.string(),
  /**
   * What turned the conversation into the token ids, for a trainer to match: the server's model, a
   * fingerprint of its tokenizer and chat template, the template's kwargs and the parsers. Present
   * when the provider renders prompts itself (`vllm`).
   */
  renderer: PromptRendererSchema.optional(),
  /** The sampling sent with every model call of the episode, `seed` being the one derived for this rollout. */
  sampling: SamplingSchema.extend({ seed: z.number().int() }),
  tools: z.array(ChatToolSchema),
  messages: z.array(ChatMessageSchema),
  steps: z.array(TrajectoryStepSchema),
  /** Every tool call's reward, in call order. */
  rewards: z.array(ToolRewardSchema),
  reward: z.number().nullable(),
  reward_reduction: RewardReductionSchema,
  finished: z.boolean(),
  status: TrajectoryStatusSchema,
  stop_reason: TrajectoryStopReasonSchema,
  error: z.object({ code: z.string(), message: z.string() }).nullable(),
  /** The final assistant text. */
  output: z.string(),
  timing: z.object({
    /** Epoch seconds. */
    started_at: z.number(),
    ended_at: z.number(),
    total_ms: nonNegative,
    model_ms: nonNegative,
    env_ms: nonNegative,
    /** `total_ms − model_ms − env_ms`: the bridge's own share (never below 0). */
    overhead_ms: nonNegative,
  }),
  metrics: z.object({
    turns: count,
    tool_calls: count,
    failed_tool_calls: count,
    input_tokens: count,
    output_tokens: count,
    total_tokens: count,
  }),
});
/** One finished episode as one JSONL line of a rollout file (docs/trajectory.md). */
export type TrajectoryRecord = z.infer<typeof TrajectoryRecordSchema>;
