import { z } from 'zod';
import { boundedObject } from '../protocol/bounded-object.js';

/**
 * The A2A v1.0 data model as it travels in JSON (ProtoJSON: camelCase fields, enums by their proto
 * names, one member of a oneof standing for the whole), the shapes runbridge reads and writes; v0.3
 * bodies are translated to and from these at the edge (`v03-wire.ts`). What a caller sends is read
 * leniently — unknown fields are ignored, as the spec asks — but bounded; what the server writes
 * carries no field the proto lacks, since strict ProtoJSON readers refuse unknown ones.
 */

/** Ids a caller names (message, context, task, push config): stored and echoed, so bounded and printable. */
export const A2aIdSchema = z
  .string()
  .min(1)
  .max(256)
  .regex(/^[\x21-\x7e]+$/, 'use 1–256 visible ASCII characters');

const metadata = boundedObject('metadata', 8, 16 * 1024);

/**
 * A part of a message as a caller sends it: exactly one of `text`, `raw` (base64 bytes), `url` or
 * `data` (any JSON), with optional `metadata`, `filename` and `mediaType`. Which one is judged where the
 * message is read (`message-input.ts`), so a part of an unknown kind gets its own message.
 */
export const PartInputSchema = z.object({
  text: z.string().optional(),
  raw: z.string().optional(),
  url: z.string().optional(),
  data: z.unknown().optional(),
  metadata: metadata.optional(),
  filename: z.string().max(1024).optional(),
  mediaType: z.string().max(256).optional(),
  /** A v0.3 part's `kind` when v1.0 has no such part (`v03-wire.ts`): kept to name it in the refusal. */
  unknownKind: z.string().max(64).optional(),
});
export type PartInput = z.infer<typeof PartInputSchema>;

/** `ROLE_USER` or `ROLE_AGENT` (ProtoJSON readers take the enum's numbers too). */
export const RoleSchema = z.union([z.enum(['ROLE_UNSPECIFIED', 'ROLE_USER', 'ROLE_AGENT']), z.number().int()]);

/** A message as a caller sends it. */
export const MessageInputSchema = z.object({
  messageId: A2aIdSchema,
  contextId: A2aIdSchema.optional(),
  taskId: A2aIdSchema.optional(),
  role: RoleSchema.optional(),
  parts: z.array(PartInputSchema).min(1, 'a message has at least one part').max(256),
  metadata: metadata.optional(),
  extensions: z.array(z.string().max(1024)).max(32).optional(),
  referenceTaskIds: z.array(z.string().max(256)).max(64).optional(),
});
export type MessageInput = z.infer<typeof MessageInputSchema>;

/** How a push notification authenticates to its receiver: `Authorization: <scheme> <credentials>`. */
export const AuthenticationInfoSchema = z.object({
  scheme: z
    .string()
    .min(1)
    .max(64)
    .regex(/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/, 'an HTTP authentication scheme such as "Bearer"'),
  credentials: z
    .string()
    .max(4096)
    .regex(/^[\x20-\x7e]*$/, 'printable ASCII only: it goes into an HTTP header')
    .optional(),
});
export type AuthenticationInfo = z.infer<typeof AuthenticationInfoSchema>;

/** The token a receiver checks (`X-A2A-Notification-Token`): printable, since it goes into a header. */
const NotificationTokenSchema = z
  .string()
  .max(4096)
  .regex(/^[\x20-\x7e]*$/, 'printable ASCII only: it goes into an HTTP header');

/** A push notification config as a caller sends it (v1.0 `TaskPushNotificationConfig`, flat). */
export const PushConfigInputSchema = z.object({
  tenant: z.string().max(256).optional(),
  id: A2aIdSchema.optional(),
  taskId: z.string().max(256).optional(),
  url: z.url({ protocol: /^https?$/, error: 'expected an http:// or https:// URL' }).max(2048),
  token: NotificationTokenSchema.optional(),
  authentication: AuthenticationInfoSchema.optional(),
});
export type PushConfigInput = z.infer<typeof PushConfigInputSchema>;

/** `SendMessageConfiguration`. */
export const SendConfigurationSchema = z.object({
  acceptedOutputModes: z.array(z.string().max(256)).max(32).optional(),
  taskPushNotificationConfig: PushConfigInputSchema.optional(),
  historyLength: z.number().int().nonnegative().optional(),
  returnImmediately: z.boolean().optional(),
});
export type SendConfiguration = z.infer<typeof SendConfigurationSchema>;

const tenant = { tenant: z.string().max(256).optional() };

/** `SendMessage` and `SendStreamingMessage` params. */
export const SendMessageParamsSchema = z.object({
  ...tenant,
  message: MessageInputSchema,
  configuration: SendConfigurationSchema.optional(),
  metadata: metadata.optional(),
});
export type SendMessageParams = z.infer<typeof SendMessageParamsSchema>;

/** `GetTask` params. */
export const GetTaskParamsSchema = z.object({
  ...tenant,
  id: z.string().min(1).max(256),
  historyLength: z.number().int().nonnegative().optional(),
});

/** `CancelTask` and `SubscribeToTask` params. */
export const TaskIdParamsSchema = z.object({
  ...tenant,
  id: z.string().min(1).max(256),
  metadata: metadata.optional(),
});

export const TASK_STATES = [
  'TASK_STATE_UNSPECIFIED',
  'TASK_STATE_SUBMITTED',
  'TASK_STATE_WORKING',
  'TASK_STATE_COMPLETED',
  'TASK_STATE_FAILED',
  'TASK_STATE_CANCELED',
  'TASK_STATE_INPUT_REQUIRED',
  'TASK_STATE_REJECTED',
  'TASK_STATE_AUTH_REQUIRED',
] as const;
export const TaskStateSchema = z.enum(TASK_STATES);
/** Where a task stands (v1.0 names). */
export type TaskState = z.infer<typeof TaskStateSchema>;

/** The four states a task never leaves. */
export function isTerminalState(state: TaskState): boolean {
  return (
    state === 'TASK_STATE_COMPLETED' ||
    state === 'TASK_STATE_FAILED' ||
    state === 'TASK_STATE_CANCELED' ||
    state === 'TASK_STATE_REJECTED'
  );
}

/** `ListTasks` params: a filter, a page size (1–100, default 50) and the token of the page. */
export const ListTasksParamsSchema = z.object({
  ...tenant,
  contextId: z.string().max(256).optional(),
  // ProtoJSON readers take an enum's number as well as its name; a client that omits the filter may send 0.
  status: z.union([TaskStateSchema, z.number().int().min(0).max(8)]).optional(),
  pageSize: z.number().int().min(0).max(100).optional(),
  pageToken: z.string().max(512).optional(),
  historyLength: z.number().int().nonnegative().optional(),
  statusTimestampAfter: z.iso.datetime({ offset: true }).optional(),
  includeArtifacts: z.boolean().optional(),
});
export type ListTasksParams = z.infer<typeof ListTasksParamsSchema>;

/** `GetTaskPushNotificationConfig` and `DeleteTaskPushNotificationConfig` params. */
export const PushConfigRefSchema = z.object({ ...tenant, taskId: z.string().min(1).max(256), id: A2aIdSchema });

/** `ListTaskPushNotificationConfigs` params. */
export const ListPushConfigsParamsSchema = z.object({
  ...tenant,
  taskId: z.string().min(1).max(256),
  pageSize: z.number().int().min(0).max(100).optional(),
  pageToken: z.string().max(512).optional(),
});

// What the server writes: the proto's fields only.

export const PartSchema = z.union([
  z.strictObject({ text: z.string(), mediaType: z.string().optional() }),
  z.strictObject({ data: z.unknown(), mediaType: z.string().optional() }),
]);
/** A part of a message or artifact the server writes: text, or JSON data. */
export type Part = z.infer<typeof PartSchema>;

export const MessageSchema = z.strictObject({
  messageId: z.string(),
  contextId: z.string().optional(),
  taskId: z.string().optional(),
  role: z.enum(['ROLE_USER', 'ROLE_AGENT']),
  parts: z.array(PartSchema).min(1),
  metadata: z.record(z.string(), z.unknown()).optional(),
});
export type Message = z.infer<typeof MessageSchema>;

export const TaskStatusSchema = z.strictObject({
  state: TaskStateSchema,
  message: MessageSchema.optional(),
  /** RFC 3339, UTC. */
  timestamp: z.string().optional(),
});
export type TaskStatus = z.infer<typeof TaskStatusSchema>;

export const ArtifactSchema = z.strictObject({
  artifactId: z.string(),
  name: z.string().optional(),
  description: z.string().optional(),
  parts: z.array(PartSchema).min(1),
  metadata: z.record(z.string(), z.unknown()).optional(),
});
export type Artifact = z.infer<typeof ArtifactSchema>;

export const TaskSchema = z.strictObject({
  id: z.string(),
  contextId: z.string(),
  status: TaskStatusSchema,
  artifacts: z.array(ArtifactSchema).optional(),
  history: z.array(MessageSchema).optional(),
  metadata: z.record(z.string(), z.unknown()).optional(),
});
export type Task = z.infer<typeof TaskSchema>;

export const TaskStatusUpdateSchema = z.strictObject({
  taskId: z.string(),
  contextId: z.string(),
  status: TaskStatusSchema,
  metadata: z.record(z.string(), z.unknown()).optional(),
});
export type TaskStatusUpdate = z.infer<typeof TaskStatusUpdateSchema>;

export const TaskArtifactUpdateSchema = z.strictObject({
  taskId: z.string(),
  contextId: z.string(),
  artifact: ArtifactSchema,
  append: z.boolean().optional(),
  lastChunk: z.boolean().optional(),
  metadata: z.record(z.string(), z.unknown()).optional(),
});
export type TaskArtifactUpdate = z.infer<typeof TaskArtifactUpdateSchema>;

/** One event of a task's stream (and one push of a v1.0 config): exactly one member. */
export const StreamResponseSchema = z.union([
  z.strictObject({ task: TaskSchema }),
  z.strictObject({ statusUpdate: TaskStatusUpdateSchema }),
  z.strictObject({ artifactUpdate: TaskArtifactUpdateSchema }),
]);
export type StreamResponse = z.infer<typeof StreamResponseSchema>;

/** A stored push notification config as the methods answer it; `credentials` are never read back. */
export const PushConfigSchema = z.strictObject({
  id: z.string(),
  taskId: z.string(),
  url: z.string(),
  token: z.string().optional(),
  authentication: z.strictObject({ scheme: z.string(), credentials: z.string().optional() }).optional(),
});
export type PushConfig = z.infer<typeof PushConfigSchema>;

/** `ListTasks` answer. */
export const ListTasksResultSchema = z.strictObject({
  tasks: z.array(TaskSchema),
  nextPageToken: z.string(),
  pageSize: z.number().int(),
  totalSize: z.number().int(),
});
export type ListTasksResult = z.infer<typeof ListTasksResultSchema>;
