/**
 * The names of the run events, as data without their schemas: `runbridge/client` tells known events
 * from a newer bridge's by this list, and a browser should not load zod for it. `run-events.ts` does
 * not compile unless its union has exactly these types (docs/events.md).
 */

/** Every run event type, in the order of `RunEventSchema`'s union. */
export const RUN_EVENT_TYPES = [
  'run.started',
  'prompt.available',
  'message.delta',
  'reasoning.delta',
  'reasoning.available',
  'tool.started',
  'tool.completed',
  'tool.arguments.delta',
  'tool.progress',
  'turn.completed',
  'tool.approval_required',
  'tool.approval_resolved',
  'message.received',
  'message.dropped',
  'run.awaiting_input',
  'run.completed',
  'run.failed',
  'run.cancelled',
] as const;

/** The three events that end every log, exactly once. */
export const TERMINAL_EVENT_TYPES = ['run.completed', 'run.failed', 'run.cancelled'] as const;
