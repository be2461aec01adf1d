import { z } from 'zod';

/** The events a webhook can be called for (docs/protocol.md §9): the run's end, and a wait on a person. */
export const WebhookEventTypeSchema = z.enum([
  'run.completed',
  'run.failed',
  'run.cancelled',
  'tool.approval_required',
  'run.awaiting_input',
]);
export type WebhookEventType = z.infer<typeof WebhookEventTypeSchema>;

/** The events a webhook is called for when its request names none: all of them. */
export const DEFAULT_WEBHOOK_EVENTS: readonly WebhookEventType[] = WebhookEventTypeSchema.options;

/** `webhook` of `POST /v1/runs`: where to deliver, and which events (default: every one above). */
export const WebhookRequestSchema = z.strictObject({
  url: z
    .url({ protocol: /^https?$/, error: 'expected an http:// or https:// URL' })
    .max(2048, 'at most 2048 characters'),
  events: z.array(WebhookEventTypeSchema).min(1).max(WebhookEventTypeSchema.options.length).optional(),
});
/** Where a run's webhook deliveries go, and for which events. */
export type WebhookRequest = z.infer<typeof WebhookRequestSchema>;

/**
 * One delivery, as the snapshot shows it: `pending` until the receiver answers 2xx (`delivered`) or
 * every attempt has failed (`failed`). `webhook_id` is the `webhook-id` header, the same on every attempt.
 */
export const WebhookDeliverySchema = z.object({
  webhook_id: z.string(),
  event: WebhookEventTypeSchema,
  seq: z.number().int().nonnegative(),
  status: z.enum(['pending', 'delivered', 'failed']),
  attempts: z.number().int().nonnegative(),
  /** The HTTP status of the last attempt; null when it got none (refused, timed out) or none was made yet. */
  last_status: z.number().int().nullable(),
  /** Why the last attempt failed, or null. */
  last_error: z.string().nullable(),
  /** Epoch seconds of the next attempt while pending, else null. */
  next_attempt_at: z.number().nullable(),
  /** Epoch seconds of the answer that delivered it, else null. */
  delivered_at: z.number().nullable(),
});
export type WebhookDelivery = z.infer<typeof WebhookDeliverySchema>;

/** A run's webhook in its snapshot: what was asked for, and each delivery so far, oldest first. */
export const WebhookStateSchema = z.object({
  url: z.string(),
  events: z.array(WebhookEventTypeSchema),
  deliveries: z.array(WebhookDeliverySchema),
});
export type WebhookState = z.infer<typeof WebhookStateSchema>;

/** The events `webhook` is called for: those it names, or every one (docs/protocol.md §9). */
export function webhookEvents(webhook: WebhookRequest): WebhookEventType[] {
  return [...new Set(webhook.events ?? DEFAULT_WEBHOOK_EVENTS)];
}
