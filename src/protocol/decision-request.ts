import { z } from 'zod';
import { boundedObject } from './bounded-object.js';
import { ApprovalDecisionSchema } from './run-events.js';

/**
 * The body of `POST /v1/runs/:id/approvals/:approval_id` (docs/protocol.md §7): approve (optionally
 * with edited arguments, a JSON object the call then runs with) or deny (optionally with a reason the
 * model is told). Strict: an unknown key is a 400.
 */
export const DecisionRequestSchema = z
  .strictObject({
    decision: ApprovalDecisionSchema,
    arguments: boundedObject('arguments', 32, 256 * 1024).optional(),
    reason: z.string().max(4000).optional(),
  })
  .refine((request) => request.arguments === undefined || request.decision === 'approve', {
    message: 'arguments edit the call an approval runs: send them with decision "approve" only',
    path: ['arguments'],
  });
/** A decision about one approval: `approve` (with edited `arguments`, if any) or `deny` (with a `reason`, if any). */
export type DecisionRequest = z.infer<typeof DecisionRequestSchema>;
