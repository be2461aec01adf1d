import { z } from 'zod';
import { boundedObject } from './bounded-object.js';
import { RUN_EVENT_TYPES, TERMINAL_EVENT_TYPES } from './run-event-types.js';
import { MessageContentSchema } from './run-request.js';

/**
 * The typed run events of docs/protocol.md §3.1. Every event is an envelope (`event`, `seq`, `run_id`,
 * `timestamp`) plus its own fields; the union is discriminated by `event`. Types and field names are
 * what clients read (docs/events.md), so a change here is a change to every client.
 */

export const UsageSchema = z.object({
  input_tokens: z.number().int().nonnegative(),
  output_tokens: z.number().int().nonnegative(),
  total_tokens: z.number().int().nonnegative(),
});
/** Token counts of a run or a turn, summed over its model calls. */
export type Usage = z.infer<typeof UsageSchema>;

/** Which task a run plays: by split and index, or a spec handed to the environment verbatim. */
export const TaskRefSchema = z.union([
  z.strictObject({ split: z.string().min(1).max(128), index: z.number().int().nonnegative() }),
  z.strictObject({ spec: boundedObject('task.spec', 32, 256 * 1024) }),
]);
/** Which task a run plays: `{split, index}`, or `{spec}` handed to the environment verbatim. */
export type TaskRef = z.infer<typeof TaskRefSchema>;

export const StopReasonSchema = z.enum(['finished', 'no_tool_calls', 'max_turns']);
/** Why a completed run stopped: the episode finished, the model answered without a tool call, or `max_turns` was reached. */
export type StopReason = z.infer<typeof StopReasonSchema>;

export const CancelReasonSchema = z.enum(['client', 'orphaned', 'shutdown', 'timeout']);
/** Who or what cancelled a run: a client's cancel, the orphan sweep, server shutdown, or the run's time limit. */
export type CancelReason = z.infer<typeof CancelReasonSchema>;

export const FinishReasonSchema = z.enum(['stop', 'tool_calls', 'length', 'content_filter', 'error', 'other']);
/** Why one model call ended, normalised across providers (`other` for a reason no provider shares). */
export type FinishReason = z.infer<typeof FinishReasonSchema>;

const envelope = {
  seq: z.number().int().nonnegative(),
  run_id: z.string(),
  /** Epoch seconds with millisecond precision. */
  timestamp: z.number(),
};

const turn = z.number().int().positive();

export const RunStartedEventSchema = z.object({
  event: z.literal('run.started'),
  ...envelope,
  env: z.string(),
  task: TaskRefSchema,
  model: z.string(),
});

/**
 * The environment's prompt — the task the model is given — as text (image blocks as `[image: mime/type]`),
 * once the session has read it: after `run.started`, before the first turn. A run that fails or is
 * cancelled before it has read the prompt has none.
 */
export const PromptAvailableEventSchema = z.object({
  event: z.literal('prompt.available'),
  ...envelope,
  text: z.string(),
});

export const MessageDeltaEventSchema = z.object({
  event: z.literal('message.delta'),
  ...envelope,
  delta: z.string(),
  turn,
});

export const ReasoningDeltaEventSchema = z.object({
  event: z.literal('reasoning.delta'),
  ...envelope,
  delta: z.string(),
  turn,
});

export const ReasoningAvailableEventSchema = z.object({
  event: z.literal('reasoning.available'),
  ...envelope,
  text: z.string(),
  turn,
});

export const ToolStartedEventSchema = z.object({
  event: z.literal('tool.started'),
  ...envelope,
  tool: z.string(),
  tool_call_id: z.string(),
  arguments: z.record(z.string(), z.unknown()),
  preview: z.string(),
  turn,
  /** 0-based position of this call among all tool calls of the run (OpenAI `tool_calls[].index`). */
  call_index: z.number().int().nonnegative(),
});

export const ToolCompletedEventSchema = z.object({
  event: z.literal('tool.completed'),
  ...envelope,
  tool: z.string(),
  tool_call_id: z.string(),
  duration: z.number().nonnegative(),
  error: z.boolean(),
  error_message: z.string().optional(),
  output: z.string(),
  truncated: z.boolean().optional(),
  reward: z.number().nullable(),
  finished: z.boolean(),
  turn,
  call_index: z.number().int().nonnegative(),
});

/**
 * The events a UI needs to show a tool call forming and running (docs/protocol.md §10).
 * `tool.arguments.delta` carries a piece of a call's arguments while the model streams them, before
 * the call's `tool.started`: the first one of a call announces it (its `delta` may be empty), and its pieces
 * joined in order are the arguments text as the model wrote it (`tool.started.arguments` stays
 * authoritative). `tool.progress` is sent every `RUNBRIDGE_TOOL_PROGRESS_SECONDS` while the call runs.
 * Both carry the `call_index` its `tool.started` and `tool.completed` will carry.
 */
export const ToolArgumentsDeltaEventSchema = z.object({
  event: z.literal('tool.arguments.delta'),
  ...envelope,
  tool: z.string(),
  tool_call_id: z.string(),
  delta: z.string(),
  turn,
  call_index: z.number().int().nonnegative(),
});

export const ToolProgressEventSchema = z.object({
  event: z.literal('tool.progress'),
  ...envelope,
  tool: z.string(),
  tool_call_id: z.string(),
  /** Seconds since the call was sent to the environment. */
  elapsed: z.number().nonnegative(),
  turn,
  call_index: z.number().int().nonnegative(),
});

export const TurnCompletedEventSchema = z.object({
  event: z.literal('turn.completed'),
  ...envelope,
  turn,
  finish_reason: FinishReasonSchema,
  usage: UsageSchema,
});

export const ToolRewardSchema = z.object({
  tool_call_id: z.string(),
  tool: z.string(),
  turn,
  reward: z.number().nullable(),
});
/** One tool call's reward in `run.completed`'s `rewards` (null when the tool gave none). */
export type ToolReward = z.infer<typeof ToolRewardSchema>;

export const RunCompletedEventSchema = z.object({
  event: z.literal('run.completed'),
  ...envelope,
  output: z.string(),
  usage: UsageSchema,
  reward: z.number().nullable(),
  rewards: z.array(ToolRewardSchema),
  finished: z.boolean(),
  turns: z.number().int().nonnegative(),
  stop_reason: StopReasonSchema,
});

export const RunFailedEventSchema = z.object({
  event: z.literal('run.failed'),
  ...envelope,
  error: z.string(),
  code: z.string(),
});

export const RunCancelledEventSchema = z.object({
  event: z.literal('run.cancelled'),
  ...envelope,
  reason: CancelReasonSchema,
});

/**
 * The events of a person in the loop (docs/protocol.md §7). `tool.approval_required` announces a
 * call that waits for a decision until `expires_at` (epoch seconds); every one is answered by one
 * `tool.approval_resolved` before the call runs (`tool.started` with the `arguments` as resolved) or,
 * denied, is answered to the model without reaching the environment; `by` says who decided: the
 * client, the timeout, or a cancel (the run ended while it waited). `message.received` is a message
 * a person sent, written when it joins the conversation: the model reads it in turn `turn`.
 * `run.awaiting_input` says chat mode waits for the next message until `expires_at`.
 */
export const ApprovalDecisionSchema = z.enum(['approve', 'deny']);
/** What a person decided about a tool call. */
export type ApprovalDecision = z.infer<typeof ApprovalDecisionSchema>;

export const ApprovalDeciderSchema = z.enum(['client', 'timeout', 'cancel']);
/** Who decided: a client's decision, the approval timeout, or a cancel of the run while it waited. */
export type ApprovalDecider = z.infer<typeof ApprovalDeciderSchema>;

export const ToolApprovalRequiredEventSchema = z.object({
  event: z.literal('tool.approval_required'),
  ...envelope,
  approval_id: z.string(),
  tool: z.string(),
  tool_call_id: z.string(),
  arguments: z.record(z.string(), z.unknown()),
  turn,
  call_index: z.number().int().nonnegative(),
  /** Epoch seconds at which the approval timeout decides. */
  expires_at: z.number(),
  /** What the timeout decides at `expires_at`: the run's `approval.on_timeout`, so a client can say so. */
  on_timeout: ApprovalDecisionSchema,
});

export const ToolApprovalResolvedEventSchema = z.object({
  event: z.literal('tool.approval_resolved'),
  ...envelope,
  approval_id: z.string(),
  tool: z.string(),
  tool_call_id: z.string(),
  decision: ApprovalDecisionSchema,
  reason: z.string().optional(),
  by: ApprovalDeciderSchema,
  /** The arguments the call runs with (a person's edit, or the model's own). */
  arguments: z.record(z.string(), z.unknown()),
  /** True when a person changed the arguments. */
  edited: z.boolean(),
  turn,
  call_index: z.number().int().nonnegative(),
});

export const MessageReceivedEventSchema = z.object({
  event: z.literal('message.received'),
  ...envelope,
  message_id: z.string(),
  content: MessageContentSchema,
  turn,
});

/**
 * A person's message the run accepted (202) but the model never read: the run ended first (at
 * `max_turns`, cancelled, failed). Written just before the terminal event, one per message, so its
 * sender learns it was not read.
 */
export const MessageDroppedEventSchema = z.object({
  event: z.literal('message.dropped'),
  ...envelope,
  message_id: z.string(),
  reason: z.literal('run_ended'),
});

export const RunAwaitingInputEventSchema = z.object({
  event: z.literal('run.awaiting_input'),
  ...envelope,
  turn,
  /** Epoch seconds at which the run stops waiting and completes. */
  expires_at: z.number(),
});

/** Every run event, discriminated by `event`: parse a frame's data with it to get a typed {@link RunEvent}. */
export const RunEventSchema = z.discriminatedUnion('event', [
  RunStartedEventSchema,
  PromptAvailableEventSchema,
  MessageDeltaEventSchema,
  ReasoningDeltaEventSchema,
  ReasoningAvailableEventSchema,
  ToolStartedEventSchema,
  ToolCompletedEventSchema,
  ToolArgumentsDeltaEventSchema,
  ToolProgressEventSchema,
  TurnCompletedEventSchema,
  ToolApprovalRequiredEventSchema,
  ToolApprovalResolvedEventSchema,
  MessageReceivedEventSchema,
  MessageDroppedEventSchema,
  RunAwaitingInputEventSchema,
  RunCompletedEventSchema,
  RunFailedEventSchema,
  RunCancelledEventSchema,
]);

/** One event of a run's log (docs/events.md): the envelope (`event`, `seq`, `run_id`, `timestamp`) and its own fields. */
export type RunEvent = z.infer<typeof RunEventSchema>;
/** The `event` names of the known run events, e.g. `tool.completed`. */
export type RunEventType = RunEvent['event'];
/** The event of type `T`. */
export type RunEventOf<T extends RunEventType> = Extract<RunEvent, { event: T }>;
/** What a producer supplies: the event without the envelope the factory fills in. */
export type RunEventInput = RunEvent extends infer E
  ? E extends RunEvent
    ? Omit<E, 'seq' | 'run_id' | 'timestamp'>
    : never
  : never;

// The union has exactly the types `RUN_EVENT_TYPES` lists, or this does not compile.
[RUN_EVENT_TYPES, TERMINAL_EVENT_TYPES] satisfies [readonly RunEventType[], readonly RunEventType[]];
({}) as Record<(typeof RUN_EVENT_TYPES)[number], true> satisfies Record<RunEventType, true>;

export { RUN_EVENT_TYPES, TERMINAL_EVENT_TYPES };
/** One of the three events that end every log, exactly once: `run.completed`, `run.failed`, `run.cancelled`. */
export type TerminalEvent = RunEventOf<(typeof TERMINAL_EVENT_TYPES)[number]>;

/** True for the three events that end a log. */
export function isTerminalEvent(event: { event: string }): event is TerminalEvent {
  return (TERMINAL_EVENT_TYPES as readonly string[]).includes(event.event);
}
