import { z } from 'zod';
import { boundedObject } from './bounded-object.js';
import { WebhookRequestSchema } from './webhook.js';

/**
 * The body of `POST /v1/runs` (docs/protocol.md §2). Strict at every level: an unknown key is a 400 naming
 * the key, so a typo never silently falls back to a default.
 */

/** Environment names end up in ORS URL paths, so only path-safe characters are allowed. */
export const EnvNameSchema = z
  .string()
  .min(1)
  .max(128)
  .regex(/^[A-Za-z0-9][A-Za-z0-9_.-]*$/, 'use letters, digits, "_", "." and "-" only');

/**
 * `provider:name`, or a bare provider such as `offline`. Only the shape is checked here: which
 * providers exist is the model registry's to say, and a bare model name (`gpt-4.1-mini`) must reach it
 * to be answered `unknown_model` with the `provider:name` it probably meant.
 */
export const ModelRefSchema = z
  .string()
  .min(1)
  .max(256)
  .regex(/^[^\s:]+(:\S+)?$/, 'expected "provider:name", e.g. "openai:gpt-4.1-mini" or "offline"');

/** The two parts of a model reference: `provider:name`, or a bare provider (`offline`) whose `name` is undefined. */
export function splitModelRef(ref: string): { provider: string; name: string | undefined } {
  const colon = ref.indexOf(':');
  return colon < 0 ? { provider: ref, name: undefined } : { provider: ref.slice(0, colon), name: ref.slice(colon + 1) };
}

/** A text part of a chat message's content. */
export const TextPartSchema = z.strictObject({ type: z.literal('text'), text: z.string() });
const ImagePartSchema = z.strictObject({
  type: z.literal('image_url'),
  image_url: z.strictObject({
    // The bridge never fetches URLs on a caller's behalf (no request may point it elsewhere), so
    // images come inline.
    url: z
      .string()
      .max(20_000_000)
      .regex(/^data:[^;,]+;base64,/, 'images must be data: URIs with base64 content'),
    detail: z.enum(['auto', 'low', 'high']).optional(),
  }),
});

/** The content of a chat message: text, or OpenAI-style parts (text and inline images). */
export const MessageContentSchema = z.union([z.string(), z.array(z.union([TextPartSchema, ImagePartSchema])).min(1)]);
/** Text, or OpenAI-style `text` / `image_url` parts, as a chat message's `content`. */
export type MessageContent = z.infer<typeof MessageContentSchema>;

/** An OpenAI-style chat message, as callers of chat APIs already write them. */
export const InputMessageSchema = z.strictObject({
  role: z.enum(['system', 'developer', 'user', 'assistant']),
  content: MessageContentSchema,
  name: z.string().max(128).optional(),
});
/** An extra user, system, developer or assistant turn of a run's `input`, in OpenAI's message shape. */
export type InputMessage = z.infer<typeof InputMessageSchema>;

export const SamplingSchema = z.strictObject({
  temperature: z.number().min(0).max(2).optional(),
  top_p: z.number().gt(0).max(1).optional(),
  max_tokens: z.number().int().positive().max(1_000_000).optional(),
  seed: z.number().int().optional(),
  /** Passed to the provider verbatim (vLLM `return_token_ids`, `logprobs`, …). */
  extra_body: boundedObject('extra_body', 16, 64 * 1024).optional(),
});
/** Sampling settings passed to the provider with every model call of a run; `extra_body` verbatim. */
export type Sampling = z.infer<typeof SamplingSchema>;

/**
 * Which task a run asks for: `{split, index}`, either of which may be left out (the split defaults
 * to the environment's first, the index to 0), or `{spec}`, a whole task object. One object rather
 * than a union, so a bad field gets its own message instead of "Invalid input". The run's `task`
 * (events, snapshot) is its resolved form, `TaskRefSchema`.
 */
export const TaskRequestSchema = z
  .strictObject({
    split: z.string().min(1).max(128).optional(),
    index: z.number().int().nonnegative().optional(),
    spec: boundedObject('task.spec', 32, 256 * 1024).optional(),
  })
  .refine((task) => task.spec === undefined || (task.split === undefined && task.index === undefined), {
    message: 'give either split and index, or spec, not both',
  });
export type TaskRequest = z.infer<typeof TaskRequestSchema>;

/** How a run's tool rewards reduce to its reward; `last` when a request names none. */
export const RewardReductionSchema = z.enum(['last', 'sum', 'mean', 'max']);
export type RewardReduction = z.infer<typeof RewardReductionSchema>;

/** `max_turns`: the model turns an episode may take; 20 when a request names none. */
export const MaxTurnsSchema = z.number().int().min(1).max(1000).default(20);

/** A day: the longest a run waits on a person for one decision or one message. */
const MAX_WAIT_SECONDS = 86_400;

/** How long a run waits on a person for one decision or one message when the request does not say. */
export const DEFAULT_WAIT_SECONDS = 600;
const WaitSecondsSchema = z.number().positive().max(MAX_WAIT_SECONDS);

/**
 * `approval` of `POST /v1/runs` (docs/protocol.md §7): which tool calls wait for a person's decision
 * (tool names, or `"*"` for every call), how long a decision may take (default 600 s), and what a
 * timeout decides (default `deny`).
 */
export const ApprovalPolicySchema = z.strictObject({
  tools: z.union([z.literal('*'), z.array(z.string().min(1).max(128)).min(1).max(256)]),
  timeout_seconds: WaitSecondsSchema.default(DEFAULT_WAIT_SECONDS),
  on_timeout: z.enum(['deny', 'approve']).default('deny'),
});
/** Which tool calls of a run wait for a person's decision, for how long, and what a timeout decides. */
export type ApprovalPolicy = z.infer<typeof ApprovalPolicySchema>;

/**
 * The body of `POST /v1/runs`, strict at every level: an unknown key fails with an issue naming it.
 * Defaults live here (and so in `/v1/openapi.json`); a parsed request has them filled in, but for
 * `input_timeout_seconds`, which must stay unset outside chat mode to be refused there (its default,
 * {@link DEFAULT_WAIT_SECONDS}, is applied where chat mode waits).
 */
export const RunRequestSchema = z
  .strictObject({
    env: EnvNameSchema.optional(),
    task: TaskRequestSchema.optional(),
    input: z.union([z.string(), z.array(InputMessageSchema).max(1000)]).optional(),
    instructions: z.string().optional(),
    model: ModelRefSchema.optional(),
    max_turns: MaxTurnsSchema,
    sampling: SamplingSchema.optional(),
    /** Forwarded to ORS `/create`; never logged, echoed or stored in events. */
    secrets: boundedObject('secrets', 8, 64 * 1024).optional(),
    metadata: boundedObject('metadata', 8, 16 * 1024).optional(),
    /** How per-tool-call rewards reduce to the run's reward. */
    reward_reduction: RewardReductionSchema.default('last'),
    /** Tool calls that wait for a person's decision (docs/protocol.md §7). */
    approval: ApprovalPolicySchema.optional(),
    /** Chat mode: an answer without a tool call waits for the next message instead of ending the run. */
    await_input: z.boolean().default(false),
    /** How long chat mode waits for a message before the run completes. */
    input_timeout_seconds: WaitSecondsSchema.optional().meta({ default: DEFAULT_WAIT_SECONDS }),
    /** Signed calls to this URL when the run ends or waits on a person (docs/protocol.md §9). */
    webhook: WebhookRequestSchema.optional(),
  })
  .refine((request) => request.input_timeout_seconds === undefined || request.await_input === true, {
    message: 'input_timeout_seconds applies to chat mode only: send it with await_input: true',
    path: ['input_timeout_seconds'],
  });
/** A validated `POST /v1/runs` body, its defaults filled in (see docs/api.md). */
export type RunRequest = z.infer<typeof RunRequestSchema>;
/** A `POST /v1/runs` body as a caller writes it, every field optional. */
export type RunRequestInput = z.input<typeof RunRequestSchema>;

/** Every default of a run request, read off the schema. */
export const RUN_REQUEST_DEFAULTS: Readonly<RunRequest> = RunRequestSchema.parse({});
