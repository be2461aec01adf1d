import type { WebhookEventType } from '../protocol/webhook.js';

/**
 * Where webhook deliveries wait until they are delivered or given up (docs/protocol.md §9): in memory
 * (they die with the process) or in Redis (any instance delivers them, so a restart loses none). The
 * dispatcher in `src/webhooks/` is written against this interface only; one suite of tests
 * (test/store/webhook-outbox-contract.ts) holds both outboxes to the same answers.
 */

/** One delivery: what to send, and how its attempts went. Times are epoch milliseconds. */
export interface OutboxDelivery {
  /** The `webhook-id` header: `msg_<run id>_<seq>`, the same on every attempt, so receivers can drop repeats. */
  id: string;
  runId: string;
  /** The key whose run made it (`RunRecord.owner`): deliveries are shared between keys. */
  owner: string;
  url: string;
  /** The run event's type: one of the webhook's events, or, for a push notification, the event it pushes. */
  event: WebhookEventType | (string & {});
  seq: number;
  /** Set for an A2A push notification (docs/a2a.md, "Push notifications") rather than the run's webhook. */
  push?: PushTarget;
  /** The JSON body, built when the event happened and signed anew at each attempt. */
  body: string;
  status: 'pending' | 'delivered' | 'failed';
  attempts: number;
  lastStatus: number | null;
  lastError: string | null;
  /** When the next attempt is due while pending. */
  nextAttemptAt: number | null;
  deliveredAt: number | null;
}

/** How due deliveries are shared between the keys whose runs made them. */
export interface ClaimShare {
  /** At most this many deliveries of one key in flight at once (on the claiming instance). */
  perOwner: number;
  /** Each key's deliveries in flight now (on the claiming instance); a key absent has none. */
  inFlight: ReadonlyMap<string, number>;
}

export interface WebhookOutbox {
  /** True when deliveries outlive this process (another instance, or this one restarted, sends them). */
  readonly durable: boolean;
  /** Stores a new pending delivery, due at its `nextAttemptAt`. */
  add(delivery: OutboxDelivery): Promise<void>;
  /**
   * Takes up to `max` pending deliveries due by `now` for this instance to attempt: none is handed to
   * anyone else until `now + leaseMs` (by then a settled one is no longer due, and one whose attempt
   * died with its instance is due again). The keys with deliveries due take turns, one delivery each
   * (its oldest due), each round starting after the key that started the round before, and a key
   * gets none past `share.perOwner` less those it has in flight: one key's backlog, however old,
   * never keeps another key's deliveries waiting. Without `share`, no key is held to a share.
   */
  claim(max: number, now: number, leaseMs: number, share?: ClaimShare): Promise<OutboxDelivery[]>;
  /** Records an attempt's outcome: still pending (due again at `nextAttemptAt`), delivered or failed. */
  settle(delivery: OutboxDelivery): Promise<void>;
  /** Run `runId`'s deliveries, oldest first. */
  list(runId: string): Promise<OutboxDelivery[]>;
  /** When the earliest pending delivery is due, or undefined when none is pending. */
  nextDue(): Promise<number | undefined>;
}

/**
 * What an A2A push notification adds to a delivery: the config it is for (a deleted config is sent
 * nothing more), and the headers its receiver asked for (its token, its `Authorization`, the body's type).
 */
export interface PushTarget {
  taskId: string;
  configId: string;
  headers: Record<string, string>;
}
