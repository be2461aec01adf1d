import { BadRequestError } from '../errors.js';
import type { WebhookDelivery, WebhookRequest } from '../protocol/webhook.js';
import type { EventLog } from './event-log.js';
import type { RunRecord } from './run-record.js';

/**
 * What the runs need of webhooks (docs/protocol.md §9), owned here so that webhooks depend on the runs
 * and not the reverse: a check of a webhook before its run is accepted, the events of each run that
 * starts on this instance, the deliveries a snapshot shows, and a stop at shutdown.
 */
export interface WebhookSink {
  /** Refuses, with a 4xx, a webhook this server cannot call. */
  check(webhook: WebhookRequest): Promise<void>;
  /** Hears the events of a run that starts executing here, from its first. */
  watch(record: RunRecord, log: EventLog): void;
  /**
   * Delivers what the entries of `log` from `from` on call for: the events this instance wrote for a run
   * it does not execute (it ended the run of a lost instance).
   */
  deliverFrom(record: RunRecord, log: EventLog, from: number): void;
  /** Run `runId`'s deliveries, as its snapshot shows them. */
  deliveries(runId: string): Promise<WebhookDelivery[]>;
  /** Stops, giving the deliveries due meanwhile up to `graceMs`. */
  stop(graceMs: number): Promise<void>;
}

/** The 400 for a run that asks for a webhook on a server that cannot sign one. */
export function webhooksNotConfigured(): BadRequestError {
  return new BadRequestError(
    'This server sends no webhooks: it has no RUNBRIDGE_WEBHOOK_SECRET to sign them with. Ask its operator to set one, or leave out "webhook".',
    { code: 'webhooks_not_configured' },
  );
}
