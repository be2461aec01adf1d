import { z } from 'zod';
import { InputMessageSchema, ModelRefSchema, RunRequestSchema, SamplingSchema, TextPartSchema } from './run-request.js';

/**
 * The body of `POST /v1/chat/completions` (docs/protocol.md §4.2): the OpenAI request shape plus `env`,
 * `task` and `max_turns`. Every field falls in one of four groups, so a client learns at once what
 * the bridge does with its request:
 *
 * - mapped onto the run: `model`, `messages`, `stream`, `temperature`, `top_p`, `max_tokens`,
 *   `max_completion_tokens`, `seed`, `metadata`, and our `env`, `task`, `max_turns`;
 * - accepted and ignored, because they concern OpenAI's own service or bookkeeping and do not change
 *   what the model generates: `stream_options`, `user`, `store`, `service_tier`, `safety_identifier`,
 *   `prompt_cache_key`, `parallel_tool_calls`;
 * - accepted only at their neutral value (what OpenAI does when they are absent), and refused
 *   otherwise: `n` (1), `logprobs` (false), `frequency_penalty` and `presence_penalty` (0),
 *   `response_format` (`{"type": "text"}`), `modalities` (`["text"]`);
 * - refused with the reason unless absent or null: `tools`, `tool_choice`, `functions`,
 *   `function_call` (a run's tools are its ORS environment's), `stop`, `top_logprobs`, `logit_bias`,
 *   `audio`, `prediction`, `reasoning_effort`, `verbosity`, `web_search_options`.
 *
 * Any other key is a 400 naming it, as everywhere in the API. `null` counts as absent, as OpenAI's
 * SDKs send it for unset optional fields.
 */

/** A field the bridge cannot honour: absent or null only, anything else is a 400 with `reason`. */
function refused(reason: string) {
  return z.never({ error: reason }).nullish().describe(`Refused unless absent or null: ${reason}.`);
}

/** A field about OpenAI's own service or bookkeeping: accepted, and changes nothing. */
function ignored<T extends z.ZodType>(schema: T) {
  return schema.nullish().describe('Accepted and ignored.');
}

const TOOLS_COME_FROM_ENV =
  'the tools of a run are those of its ORS environment ("env"); the bridge calls them itself, so a request cannot declare tools';
const NO_PER_TOKEN_CONTROL = 'the bridge does not pass per-token controls to its model providers';
const ONLY_TEXT = 'only text output is supported: the episode decides what the model writes';

/** Instructions: text, as a string or text parts. */
const InstructionContentSchema = z.union([z.string(), z.array(TextPartSchema).min(1)]);

const SystemMessageSchema = z.strictObject({
  role: z.literal('system'),
  content: InstructionContentSchema,
  name: z.string().max(128).nullish(),
});

const DeveloperMessageSchema = z.strictObject({
  role: z.literal('developer'),
  content: InstructionContentSchema,
  name: z.string().max(128).nullish(),
});

const UserMessageSchema = z.strictObject({
  role: z.literal('user'),
  content: InputMessageSchema.shape.content,
  name: z.string().max(128).nullish(),
});

/**
 * An earlier assistant turn. Sent back as a client got it, it may carry the bookkeeping fields of a
 * completion; `tool_calls` and `function_call` belonged to an earlier episode's ORS session and are
 * not replayed (only the text is), so an assistant message may be passed back unchanged.
 */
const AssistantMessageSchema = z.strictObject({
  role: z.literal('assistant'),
  content: InputMessageSchema.shape.content.nullish(),
  name: z.string().max(128).nullish(),
  refusal: z.string().nullish(),
  reasoning_content: z.string().nullish(),
  tool_calls: z.array(z.unknown()).nullish(),
  function_call: z.unknown().optional(),
  audio: z.unknown().optional(),
  annotations: z.array(z.unknown()).nullish(),
});

export const ChatMessageSchema = z.discriminatedUnion(
  'role',
  [SystemMessageSchema, DeveloperMessageSchema, UserMessageSchema, AssistantMessageSchema],
  {
    error: (issue) => {
      const role =
        issue.input !== null && typeof issue.input === 'object' ? (issue.input as { role?: unknown }).role : undefined;
      if (role === 'tool' || role === 'function') {
        return `"${role}" messages are not accepted: every chat completion plays a fresh ORS episode, whose tools the bridge calls itself, so earlier tool results have nothing to answer`;
      }
      return 'each message needs a "role" of "system", "developer", "user" or "assistant"';
    },
  },
);
export type ChatMessage = z.infer<typeof ChatMessageSchema>;

export const ChatCompletionRequestSchema = z.strictObject({
  model: ModelRefSchema.nullish(),
  messages: z.array(ChatMessageSchema).min(1).max(1000),
  stream: z.boolean().nullish(),
  // The usage chunk is always sent (docs/protocol.md §3.2); these switches change nothing.
  stream_options: ignored(
    z.strictObject({ include_usage: z.boolean().nullish(), include_obfuscation: z.boolean().nullish() }),
  ),
  temperature: SamplingSchema.shape.temperature.unwrap().nullish(),
  top_p: SamplingSchema.shape.top_p.unwrap().nullish(),
  max_tokens: SamplingSchema.shape.max_tokens.unwrap().nullish().describe('Per model call, not per episode.'),
  max_completion_tokens: SamplingSchema.shape.max_tokens
    .unwrap()
    .nullish()
    .describe('Per model call; wins over max_tokens when both are set.'),
  seed: SamplingSchema.shape.seed.unwrap().nullish(),
  metadata: RunRequestSchema.shape.metadata
    .unwrap()
    .nullish()
    .describe("Stored as the run's metadata (echoed in its snapshot)."),
  env: RunRequestSchema.shape.env,
  task: RunRequestSchema.shape.task,
  max_turns: RunRequestSchema.shape.max_turns,

  user: ignored(z.string().max(256)),
  store: ignored(z.boolean()),
  service_tier: ignored(z.string().max(64)),
  safety_identifier: ignored(z.string().max(256)),
  prompt_cache_key: ignored(z.string().max(256)),
  parallel_tool_calls: ignored(z.boolean()),

  // Accepted at their neutral value only (what OpenAI does without them).
  n: z.literal(1, { error: 'a chat completion plays one episode, so n must be 1' }).nullish(),
  logprobs: z.literal(false, { error: NO_PER_TOKEN_CONTROL }).nullish(),
  frequency_penalty: z.literal(0, { error: NO_PER_TOKEN_CONTROL }).nullish(),
  presence_penalty: z.literal(0, { error: NO_PER_TOKEN_CONTROL }).nullish(),
  response_format: z.strictObject({ type: z.literal('text', { error: ONLY_TEXT }) }, { error: ONLY_TEXT }).nullish(),
  modalities: z.tuple([z.literal('text', { error: ONLY_TEXT })], { error: ONLY_TEXT }).nullish(),

  stop: refused('stop sequences are not supported: an episode ends when its environment says so'),
  tools: refused(TOOLS_COME_FROM_ENV),
  tool_choice: refused(TOOLS_COME_FROM_ENV),
  functions: refused(TOOLS_COME_FROM_ENV),
  function_call: refused(TOOLS_COME_FROM_ENV),
  top_logprobs: refused(NO_PER_TOKEN_CONTROL),
  logit_bias: refused(NO_PER_TOKEN_CONTROL),
  audio: refused('audio output is not supported'),
  prediction: refused('predicted outputs are not supported'),
  reasoning_effort: refused('reasoning_effort is not passed to model providers; configure the model instead'),
  verbosity: refused('verbosity is not passed to model providers; configure the model instead'),
  web_search_options: refused("web search is not supported: a run's tools are those of its ORS environment"),
});
export type ChatCompletionRequest = z.infer<typeof ChatCompletionRequestSchema>;
