import { z } from 'zod';
import { StopReasonSchema, TaskRefSchema, ToolApprovalRequiredEventSchema, UsageSchema } from './run-events.js';
import { WebhookStateSchema } from './webhook.js';

export const RunStatusSchema = z.enum([
  'queued',
  'running',
  'requires_action',
  'awaiting_input',
  'completed',
  'failed',
  'cancelled',
]);
/**
 * Where a run is: `queued → running → completed | failed | cancelled`; while running it may wait on a
 * person, `requires_action` (tool calls await decisions) or `awaiting_input` (chat mode awaits a message).
 */
export type RunStatus = z.infer<typeof RunStatusSchema>;

/** A tool call waiting for a decision, as the snapshot lists it (the fields of its `tool.approval_required`). */
export const PendingApprovalSchema = ToolApprovalRequiredEventSchema.pick({
  approval_id: true,
  tool: true,
  tool_call_id: true,
  arguments: true,
  turn: true,
  call_index: true,
  expires_at: true,
});
/** A tool call waiting for a decision: approval id, tool, call id, arguments, turn, call index, expiry. */
export type PendingApproval = z.infer<typeof PendingApprovalSchema>;

/** Characters of a waiting call's arguments (as JSON) a list item shows (docs/protocol.md §2.6). */
export const ARGUMENTS_PREVIEW_CHARS = 200;

/**
 * A tool call waiting for a decision as `GET /v1/runs` lists it (docs/protocol.md §2.6): what its
 * snapshot entry has, but instead of the arguments the first {@link ARGUMENTS_PREVIEW_CHARS} characters
 * of their JSON, and whether that is all of it.
 */
export const PendingApprovalSummarySchema = PendingApprovalSchema.omit({ arguments: true }).extend({
  /** The arguments as compact JSON, cut at 200 characters. */
  arguments_preview: z.string(),
  /** True when the preview is not the whole of the arguments: `GET /v1/runs/:id` has them whole. */
  arguments_truncated: z.boolean(),
});
/** A tool call waiting for a decision, as a list item shows it. */
export type PendingApprovalSummary = z.infer<typeof PendingApprovalSummarySchema>;

/** The status snapshot of a run (docs/protocol.md §2); `GET /v1/runs/:id` answers it. Times are epoch seconds. */
export const RunSnapshotSchema = z.object({
  run_id: z.string(),
  status: RunStatusSchema,
  created_at: z.number(),
  updated_at: z.number(),
  env: z.string(),
  task: TaskRefSchema.nullable(),
  model: z.string(),
  metadata: z.record(z.string(), z.unknown()),
  turns: z.number().int().nonnegative(),
  usage: UsageSchema,
  reward: z.number().nullable(),
  finished: z.boolean(),
  output: z.string().nullable(),
  error: z.object({ code: z.string(), message: z.string() }).nullable(),
  /** Why a completed run stopped (`finished`, `no_tool_calls`, `max_turns`); null until it completes, and for a run that failed or was cancelled. */
  stop_reason: StopReasonSchema.nullable(),
  /** The tool calls waiting for a decision (status `requires_action`), oldest first; empty otherwise. */
  pending_approvals: z.array(PendingApprovalSchema),
  /** Highest `seq` in the log, or -1 while the run is queued. */
  last_seq: z.number().int(),
  /** The run's webhook and its deliveries (docs/protocol.md §9); absent when the request had none. */
  webhook: WebhookStateSchema.optional(),
  /** The id of the run's OpenTelemetry trace; absent when the run was made while tracing was off. */
  trace_id: z.string().optional(),
  /** A link to that trace, from the server's `RUNBRIDGE_TRACE_URL`; absent without one. */
  trace_url: z.string().optional(),
});
/** The status snapshot of a run, a fold over its event log; `GET /v1/runs/:id` answers it. */
export type RunSnapshot = z.infer<typeof RunSnapshotSchema>;

/**
 * A run as `GET /v1/runs` lists it (docs/protocol.md §2.6): its snapshot, with each waiting call
 * summarised rather than given with its arguments, so a list stays small however large they are.
 */
export const RunListItemSchema = RunSnapshotSchema.extend({
  /** The tool calls waiting for a decision, oldest first, each with a preview of its arguments. */
  pending_approvals: z.array(PendingApprovalSummarySchema),
});
/** A run as `GET /v1/runs` lists it. */
export type RunListItem = z.infer<typeof RunListItemSchema>;

/** The 202 answer of `POST /v1/runs`. */
export const RunCreatedSchema = z.object({
  run_id: z.string(),
  status: RunStatusSchema,
  events_url: z.string(),
  created_at: z.number(),
});
/** The answer of `POST /v1/runs`: the run's id, status and events URL (a path on the bridge). */
export type RunCreated = z.infer<typeof RunCreatedSchema>;
