import type { ApprovalDecision, CancelReason } from '../protocol/run-events.js';
import type { MessageContent } from '../protocol/run-request.js';

/**
 * A message that steers a run from wherever the request arrived to the instance executing it: a
 * cancel, a decision about an approval, or a person's message (docs/protocol.md §7). Plain JSON, so a
 * shared store carries it as it is.
 */
export type ControlMessage =
  | { type: 'cancel'; reason: CancelReason }
  | {
      type: 'approval';
      approval_id: string;
      decision: ApprovalDecision;
      /** Edited arguments (approve only). */
      arguments?: Record<string, unknown>;
      reason?: string;
      /** Names this decision: the run writes it beside its `tool.approval_resolved`, so the sender learns whether it won. */
      decision_id: string;
    }
  | { type: 'message'; message_id: string; content: MessageContent };

/**
 * What became of a control message: `sent` to the instance executing the run (which takes it), `full`
 * (a person's message refused: as many wait for the model as may, counted where the run executes), or
 * `gone` (the run executes nowhere: it ended, or its record was lost).
 */
export type ControlOutcome = 'sent' | 'full' | 'gone';
