import { z } from 'zod';

/**
 * The ORS wire types (docs/protocol.md §5: the ORS HTTP API, and what the reference server does where it is vague).
 * Our server always writes every key (`detail`, `metadata`, `reward` as null, `finished` false), as
 * the reference does; our client accepts their absence so it also works with laxer servers.
 */

export const TextBlockSchema = z.object({
  type: z.literal('text'),
  text: z.string(),
  detail: z.unknown().nullable().default(null),
});
/** A text block of a prompt or a tool result. */
export type TextBlock = z.infer<typeof TextBlockSchema>;

export const ImageBlockSchema = z.object({
  type: z.literal('image'),
  /** Base64-encoded image bytes. */
  data: z.string(),
  mimeType: z.string(),
  detail: z.unknown().nullable().default(null),
});
/** An image block of a prompt or a tool result: base64 `data` with its `mimeType`. */
export type ImageBlock = z.infer<typeof ImageBlockSchema>;

export const BlockSchema = z.discriminatedUnion('type', [TextBlockSchema, ImageBlockSchema]);
/** A block of content an environment sends: a prompt part or a piece of a tool result. */
export type Block = z.infer<typeof BlockSchema>;

export const BlocksSchema = z.array(BlockSchema);

export const ToolSpecSchema = z.object({
  name: z.string().min(1),
  description: z.string().default(''),
  /** JSON Schema of the tool's input; null (or absent) when the tool takes no input. */
  input_schema: z.record(z.string(), z.unknown()).nullable().default(null),
});
/** A tool as ORS lists it: name, description and the JSON Schema of its input (null for none). */
export type ToolSpec = z.infer<typeof ToolSpecSchema>;

export const ToolListSchema = z.object({ tools: z.array(ToolSpecSchema) });

export const SplitSchema = z.object({
  name: z.string(),
  type: z.enum(['train', 'validation', 'test']),
});
/** A named task split of an environment and its kind: `train`, `validation` or `test`. */
export type Split = z.infer<typeof SplitSchema>;

export const ToolOutputSchema = z.object({
  blocks: BlocksSchema,
  metadata: z.record(z.string(), z.unknown()).nullable().default(null),
  reward: z.number().nullable().default(null),
  finished: z.boolean().default(false),
});
export type ToolOutput = z.infer<typeof ToolOutputSchema>;

/** The JSON an `/{env}/call` stream delivers in `chunk`* + `end`. */
export const RunToolResultSchema = z.discriminatedUnion('ok', [
  z.object({ ok: z.literal(true), output: ToolOutputSchema }),
  z.object({ ok: z.literal(false), error: z.string() }),
]);
export type RunToolResult = z.infer<typeof RunToolResultSchema>;

/** `POST /create` body. Exactly one of `task_spec` or `split`+`index`. */
export const CreateRequestSchema = z.strictObject({
  env_name: z.string().optional(),
  task_spec: z.record(z.string(), z.unknown()).optional(),
  split: z.string().optional(),
  index: z.number().int().optional(),
  secrets: z.record(z.string(), z.unknown()).default({}),
});
export type CreateRequest = z.infer<typeof CreateRequestSchema>;

/** `POST /{env}/call` body. */
export const CallRequestSchema = z.strictObject({
  name: z.string(),
  input: z.record(z.string(), z.unknown()),
  task_id: z.string().optional(),
});
export type CallRequest = z.infer<typeof CallRequestSchema>;

export const SplitRequestSchema = z.strictObject({ split: z.string() });
export const TaskRequestSchema = z.strictObject({ split: z.string(), index: z.number().int() });
export const TaskRangeRequestSchema = z.strictObject({
  split: z.string(),
  start: z.number().int().optional(),
  stop: z.number().int().optional(),
});

/** The error body of every non-SSE ORS failure (FastAPI's shape). */
export const OrsErrorBodySchema = z.object({ detail: z.unknown() });
