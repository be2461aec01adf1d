import { DEFAULT_WEBHOOK_EVENTS, type WebhookEventType, type WebhookRequest } from '../protocol/webhook.js';

/** The events `webhook` is called for: those it names, or every one (docs/protocol.md §9). */
export function webhookEvents(webhook: WebhookRequest): WebhookEventType[] {
  return [...new Set(webhook.events ?? DEFAULT_WEBHOOK_EVENTS)];
}
