import { Webhook } from 'standardwebhooks';
import type { WebhookSettings } from '../config/index.js';
import { BadRequestError } from '../errors.js';
import { isTerminalEvent, type RunEvent } from '../protocol/run-events.js';
import { type WebhookDelivery, type WebhookRequest, webhookEvents } from '../protocol/webhook.js';
import type { EventLog } from '../runs/event-log.js';
import type { RunRecord } from '../runs/run-record.js';
import { listItemOf } from '../runs/snapshot-of.js';
import { type WebhookSink, webhooksNotConfigured } from '../runs/webhook-sink.js';
import { type BridgeMetrics, noMetrics } from '../telemetry/bridge-metrics.js';
import type { Logger } from '../telemetry/logger.js';
import { type PostOutcome, postWebhook } from './post-webhook.js';
import { TargetBreaker } from './target-breaker.js';
import type { OutboxDelivery, PushTarget, WebhookOutbox } from './webhook-outbox.js';
import { type HostLookup, resolveWebhookTarget, systemLookup, WebhookTargetError } from './webhook-target.js';

export interface WebhookDispatcherOptions {
  outbox: WebhookOutbox;
  settings: WebhookSettings;
  log: Logger;
  /** Counts delivery attempts by outcome; default none. */
  metrics?: BridgeMetrics;
  now?: () => number;
  /** How host names resolve (tests resolve names of their own). */
  lookup?: HostLookup;
  /**
   * Whether a push notification's config still stands, asked before each attempt: a config deleted
   * meanwhile is sent nothing more (its pending deliveries fail, unsent). Default: every one does.
   */
  pushWanted?: (push: PushTarget) => Promise<boolean>;
}

/** An A2A push notification to deliver: what the outbox keeps of it (docs/a2a.md, "Push notifications"). */
export type PushDelivery = Pick<OutboxDelivery, 'id' | 'runId' | 'owner' | 'url' | 'event' | 'seq' | 'body'> & {
  push: PushTarget;
};

/** The longest wait between two attempts. */
const MAX_RETRY_MS = 10 * 60_000;
/** What an attempt may take beyond its timeout (resolving, recording) before another instance may take it. */
const LEASE_MARGIN_MS = 10_000;

/**
 * Calls runs' webhooks (docs/protocol.md §9): checks each URL when the run is created, turns the
 * chosen events of the runs executing here into deliveries in the outbox, and attempts due
 * deliveries — its own, or, with a shared outbox, anyone's — signed per Standard Webhooks, at most
 * `concurrency` at once, retrying with exponential backoff and jitter until `maxAttempts`. The keys
 * whose runs made the deliveries take turns at the free slots, none holding more than
 * `concurrencyPerKey`, and a key's receiver that keeps failing is not sent to for a while
 * ({@link TargetBreaker}), so one key's dead receiver neither holds every slot nor costs a timeout per
 * delivery.
 */
export class WebhookDispatcher implements WebhookSink {
  readonly #o: WebhookDispatcherOptions;
  readonly #now: () => number;
  readonly #signer: Webhook | undefined;
  /** Attempts in flight, and deliveries being written to the outbox. */
  readonly #work = new Set<Promise<void>>();
  #inFlight = 0;
  /** Attempts in flight, by the key whose run made the delivery. */
  readonly #inFlightOf = new Map<string, number>();
  readonly #breaker: TargetBreaker;
  #timer: NodeJS.Timeout | undefined;
  #ticking: Promise<void> | undefined;
  #tickAgain = false;
  #stopped = false;

  constructor(options: WebhookDispatcherOptions) {
    this.#o = options;
    this.#now = options.now ?? Date.now;
    this.#signer = options.settings.secret === undefined ? undefined : new Webhook(options.settings.secret);
    this.#breaker = new TargetBreaker({
      failures: options.settings.breakerFailures,
      openMs: options.settings.breakerMs,
    });
    this.#schedule();
  }

  /**
   * Refuses, with a 400, a webhook this server cannot call: no secret configured
   * (`webhooks_not_configured`), a target the SSRF guard refuses (`webhook_refused`), or a host
   * that does not resolve (`webhook_unresolved`).
   */
  async check(webhook: WebhookRequest): Promise<void> {
    if (this.#signer === undefined) throw webhooksNotConfigured();
    try {
      await resolveWebhookTarget(webhook.url, this.#o.settings.allowedHosts, this.#o.lookup ?? systemLookup);
    } catch (error) {
      if (error instanceof WebhookTargetError)
        throw new BadRequestError(`webhook.url: ${error.message}`, { code: error.code });
      throw error;
    }
  }

  /** Turns the webhook events of the run of `record` into deliveries as they are appended to `log` (a run executing here). */
  watch(record: RunRecord, log: EventLog): void {
    const webhook = record.request.webhook;
    if (webhook === undefined) return;
    const wanted = new Set<string>(webhookEvents(webhook));
    const stop = log.onAppend(({ event }) => {
      if (wanted.has(event.event)) this.#track(this.#enqueue(record, log, webhook.url, event));
      if (isTerminalEvent(event)) stop();
    });
  }

  /** Turns the webhook events among the entries of `log` from `from` on into deliveries (the end of a lost instance's run). */
  deliverFrom(record: RunRecord, log: EventLog, from: number): void {
    const webhook = record.request.webhook;
    if (webhook === undefined) return;
    const wanted = new Set<string>(webhookEvents(webhook));
    for (const { event } of log.entries.slice(from)) {
      if (wanted.has(event.event)) this.#track(this.#enqueue(record, log, webhook.url, event));
    }
  }

  /** Run `runId`'s deliveries, as its snapshot shows them (its webhook's: push notifications are the A2A task's). */
  async deliveries(runId: string): Promise<WebhookDelivery[]> {
    return (await this.#o.outbox.list(runId)).filter((delivery) => delivery.push === undefined).map(deliveryState);
  }

  /**
   * Refuses, as {@link check} does, a push notification URL this server cannot call. Push
   * notifications go through the same outbox, guard, signature, retries, turns and breaker as webhooks.
   */
  async checkPushUrl(url: string): Promise<void> {
    await this.check({ url });
  }

  /** Queues an A2A push notification; its attempts are a webhook delivery's. */
  enqueuePush(delivery: PushDelivery): void {
    this.#track(this.#add({ ...delivery }));
  }

  /**
   * Stops: waits for the deliveries being recorded and the attempts in flight, and — when the outbox
   * dies with this process — keeps delivering for up to `graceMs` while deliveries are due within it
   * (the runs just cancelled by the shutdown have their say). A shared outbox keeps its pending ones
   * for the other instances, or for this one when it comes back.
   */
  async stop(graceMs: number): Promise<void> {
    const deadline = this.#now() + graceMs;
    if (this.#o.outbox.durable) this.#stopClaiming();
    while (this.#now() < deadline) {
      if (this.#work.size > 0) {
        await Promise.race([Promise.allSettled([...this.#work]), sleep(50)]);
        continue;
      }
      if (this.#o.outbox.durable) break;
      const next = await this.#o.outbox.nextDue().catch(() => undefined);
      if (next === undefined || next > deadline) break;
      // A retry due within the deadline: the poll claims it; look again a little later (a timer, so
      // the event loop runs meanwhile).
      await sleep(50);
    }
    this.#stopClaiming();
  }

  #stopClaiming(): void {
    this.#stopped = true;
    clearTimeout(this.#timer);
  }

  async #enqueue(record: RunRecord, log: EventLog, url: string, event: RunEvent): Promise<void> {
    // The run at the event as lists show it — its waiting calls summarised, since every one of a
    // turn's announcements is a delivery and the event carries its own call's arguments whole
    // (docs/protocol.md §2.6); its own `webhook` is left out: the receiver is that webhook, and the
    // deliveries' states change after the fact.
    const { webhook: _webhook, ...snapshot } = listItemOf(record, log);
    const body = JSON.stringify({
      type: event.event,
      timestamp: new Date(event.timestamp * 1000).toISOString(),
      data: { run: snapshot, event },
    });
    await this.#add({
      id: `msg_${record.id}_${event.seq}`,
      runId: record.id,
      owner: record.owner,
      url,
      event: event.event,
      seq: event.seq,
      body,
    });
  }

  async #add(
    delivery: Omit<
      OutboxDelivery,
      'status' | 'attempts' | 'lastStatus' | 'lastError' | 'nextAttemptAt' | 'deliveredAt'
    >,
  ): Promise<void> {
    await this.#o.outbox.add({
      ...delivery,
      status: 'pending',
      attempts: 0,
      lastStatus: null,
      lastError: null,
      nextAttemptAt: this.#now(),
      deliveredAt: null,
    });
    this.#wake();
  }

  #track(work: Promise<void>): void {
    const tracked = work.catch((error) =>
      this.#o.log.error({ err: error }, 'webhook: could not record or settle a delivery'),
    );
    this.#work.add(tracked);
    void tracked.finally(() => this.#work.delete(tracked));
  }

  #schedule(): void {
    // Without a secret no webhook is accepted here, so there is nothing to deliver.
    if (this.#stopped || this.#signer === undefined) return;
    clearTimeout(this.#timer);
    // How often the outbox is asked for due deliveries when nothing woke the dispatcher sooner.
    this.#timer = setTimeout(() => this.#wake(), this.#o.settings.pollMs);
    this.#timer.unref();
  }

  /** Claims due deliveries while attempts may start; overlapping calls fold into one. */
  #wake(): void {
    if (this.#stopped) return;
    if (this.#ticking) {
      this.#tickAgain = true;
      return;
    }
    this.#ticking = this.#tick()
      .catch((error) => this.#o.log.error({ err: error }, 'webhook: could not claim due deliveries'))
      .finally(() => {
        this.#ticking = undefined;
        if (this.#tickAgain) {
          this.#tickAgain = false;
          this.#wake();
        } else {
          this.#schedule();
        }
      });
  }

  async #tick(): Promise<void> {
    const { concurrency, concurrencyPerKey, timeoutMs } = this.#o.settings;
    const free = concurrency - this.#inFlight;
    if (free <= 0 || this.#stopped) return;
    const due = await this.#o.outbox.claim(free, this.#now(), timeoutMs + LEASE_MARGIN_MS, {
      perOwner: concurrencyPerKey,
      inFlight: this.#inFlightOf,
    });
    for (const delivery of due) {
      const { owner } = delivery;
      this.#inFlight++;
      this.#inFlightOf.set(owner, (this.#inFlightOf.get(owner) ?? 0) + 1);
      this.#track(
        this.#attempt(delivery).finally(() => {
          this.#inFlight--;
          const left = (this.#inFlightOf.get(owner) ?? 1) - 1;
          if (left > 0) this.#inFlightOf.set(owner, left);
          else this.#inFlightOf.delete(owner);
          this.#wake();
        }),
      );
    }
  }

  async #attempt(delivery: OutboxDelivery): Promise<void> {
    const { settings } = this.#o;
    const origin = new URL(delivery.url).origin;
    // A key's receiver: what one key's runs fail at never holds back another key's deliveries.
    const target = `${delivery.owner} ${origin}`;
    const refusal =
      delivery.push !== undefined && !(await (this.#o.pushWanted?.(delivery.push) ?? true))
        ? 'the push notification config was deleted'
        : this.#breaker.refusal(target, origin, this.#now());
    const dropped = refusal === 'the push notification config was deleted';
    let sent: { outcome: PostOutcome; retry: boolean } | undefined;
    if (refusal === undefined) {
      try {
        sent = await this.#send(delivery);
      } finally {
        this.#breaker.record(target, this.#now(), sent === undefined ? 'not sent' : failureOf(sent.outcome));
      }
    }
    const outcome: PostOutcome = sent?.outcome ?? { status: null, error: refusal as string };
    const retry = sent?.retry ?? !dropped;
    const lastError = failureOf(outcome) ?? null;
    const delivered = lastError === null;
    const attempts = delivery.attempts + 1;
    const failed = !delivered && (!retry || attempts >= settings.maxAttempts);
    const now = this.#now();
    const settled: OutboxDelivery = {
      ...delivery,
      attempts,
      lastStatus: outcome.status,
      lastError,
      status: delivered ? 'delivered' : failed ? 'failed' : 'pending',
      nextAttemptAt: delivered || failed ? null : now + backoffMs(settings.retryMs, attempts),
      deliveredAt: delivered ? now : null,
    };
    (this.#o.metrics ?? noMetrics).webhookDelivery(delivered ? 'delivered' : failed ? 'failed' : 'retry');
    if (failed) {
      this.#o.log.warn(
        {
          run_id: delivery.runId,
          ...traceOf(delivery),
          webhook_id: delivery.id,
          event: delivery.event,
          origin,
          attempts,
          last_status: outcome.status,
        },
        `webhook: delivery ${delivery.id} (${delivery.event} of run ${delivery.runId}) to ${origin} failed after ${attempts} attempt(s): ${lastError}`,
      );
    }
    await this.#o.outbox.settle(settled);
  }

  /** One attempt to deliver `delivery`: what the receiver answered, and whether another attempt may help. */
  async #send(delivery: OutboxDelivery): Promise<{ outcome: PostOutcome; retry: boolean }> {
    const { settings, lookup } = this.#o;
    const startedAt = this.#now();
    try {
      const target = await resolveWebhookTarget(delivery.url, settings.allowedHosts, lookup ?? systemLookup);
      const signature = (this.#signer as Webhook).sign(delivery.id, new Date(startedAt), delivery.body);
      const outcome = await postWebhook(
        target,
        {
          ...delivery.push?.headers,
          'webhook-id': delivery.id,
          'webhook-timestamp': String(Math.floor(startedAt / 1000)),
          'webhook-signature': signature,
        },
        delivery.body,
        settings.timeoutMs,
      );
      return { outcome, retry: true };
    } catch (error) {
      if (!(error instanceof WebhookTargetError)) throw error;
      // The guard says no for good (the name now resolves somewhere private): retrying cannot help.
      return { outcome: { status: null, error: error.message }, retry: error.code !== 'webhook_refused' };
    }
  }
}

/** Why an attempt did not deliver, or undefined when it did (a 2xx). */
function failureOf(outcome: PostOutcome): string | undefined {
  if (outcome.status === null) return outcome.error;
  return outcome.status >= 200 && outcome.status < 300 ? undefined : `the receiver answered ${outcome.status}`;
}

/** The wait after attempt `attempts`: `baseMs` doubled per attempt, times a jitter of 0.5–1, at most `MAX_RETRY_MS`. */
export function backoffMs(baseMs: number, attempts: number): number {
  const exponential = Math.min(MAX_RETRY_MS, baseMs * 2 ** (attempts - 1));
  return Math.round(exponential * (0.5 + Math.random() / 2));
}

/** A delivery as the snapshot shows it (epoch seconds). */
function deliveryState(delivery: OutboxDelivery): WebhookDelivery {
  const seconds = (ms: number | null) => (ms === null ? null : ms / 1000);
  return {
    webhook_id: delivery.id,
    event: delivery.event as WebhookDelivery['event'],
    seq: delivery.seq,
    status: delivery.status,
    attempts: delivery.attempts,
    last_status: delivery.lastStatus,
    last_error: delivery.lastError,
    next_attempt_at: seconds(delivery.nextAttemptAt),
    delivered_at: seconds(delivery.deliveredAt),
  };
}

/** The `trace_id` of a delivery's run, read from the snapshot its body carries, for its log line. */
function traceOf(delivery: OutboxDelivery): { trace_id?: string } {
  const traceId = (JSON.parse(delivery.body) as { data?: { run?: { trace_id?: unknown } } }).data?.run?.trace_id;
  return typeof traceId === 'string' ? { trace_id: traceId } : {};
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
