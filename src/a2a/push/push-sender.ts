/**
 * What push notifications need of the webhooks (`WebhookDispatcher`, wired in `main.ts`): a check of a
 * receiver's URL against the same SSRF guard, and a queue into the same outbox, so a push is signed,
 * retried, shared between keys and instances, and survives a restart as a webhook delivery does.
 */

/** The config a push is for, and the headers its receiver asked for. */
export interface PushTarget {
  taskId: string;
  configId: string;
  headers: Record<string, string>;
}

/** One push: its `webhook-id` (the same on every attempt), the run and event it stands for, and its body. */
export interface PushDelivery {
  id: string;
  runId: string;
  owner: string;
  url: string;
  event: string;
  seq: number;
  body: string;
  push: PushTarget;
}

export interface PushSender {
  /** Refuses, with a 4xx, a URL this server cannot push to (no webhook secret, the SSRF guard, DNS). */
  checkPushUrl(url: string): Promise<void>;
  /** Queues `delivery` in the outbox. */
  enqueuePush(delivery: PushDelivery): void;
}
