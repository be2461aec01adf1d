import { isTerminalEvent } from '../../protocol/run-events.js';
import type { EventLog, LoggedEvent } from '../../runs/event-log.js';
import type { RunRecord } from '../../runs/run-record.js';
import type { WebhookSink } from '../../runs/webhook-sink.js';
import type { A2aStore, StoredPushConfig } from '../a2a-store.js';
import { taskEventsOf } from '../task-events.js';
import { contextIdOf, subjectOf, taskAt } from '../task-view.js';
import { taskToV03 } from '../v03-wire.js';
import type { PushDelivery, PushSender } from './push-sender.js';

/**
 * Turns a task's events into push deliveries (docs/a2a.md, "Push notifications"), on the instance that
 * writes them: the one executing the run, or the one that ended a lost instance's run. Each config
 * gets, per run event, what its version asks for: v1.0 one POST per stream event (the `StreamResponse`,
 * A2A v1.0 §4.3.3), v0.3 the whole task as it then stands (A2A v0.3 §9.5). The configs are read when
 * the events are written, so a config set or deleted through any instance counts from then on.
 */
export class PushNotifier {
  readonly #store: A2aStore;
  readonly #sender: PushSender;
  readonly #onError: (error: unknown) => void;

  constructor(store: A2aStore, sender: PushSender, onError: (error: unknown) => void) {
    this.#store = store;
    this.#sender = sender;
    this.#onError = onError;
  }

  /** Pushes the events of a run executing here as they are appended, from its first. */
  watch(record: RunRecord, log: EventLog): void {
    let waiting: LoggedEvent[] = [];
    let busy = false;
    // The events of a burst share one read of the configs, and go out in order.
    const drain = async () => {
      busy = true;
      try {
        while (waiting.length > 0) {
          const entries = waiting;
          waiting = [];
          await this.#push(record, log.entries, entries);
        }
      } catch (error) {
        this.#onError(error);
      } finally {
        busy = false;
      }
    };
    const stop = log.onAppend((entry) => {
      waiting.push(entry);
      if (!busy) void drain();
      if (isTerminalEvent(entry.event)) stop();
    });
  }

  /** Pushes the entries of `log` from `from` on (the end this instance wrote for a lost instance's run). */
  deliverFrom(record: RunRecord, log: EventLog, from: number): void {
    this.#push(record, log.entries, log.entries.slice(from)).catch(this.#onError);
  }

  /** Pushes to `config` alone the events already in `log`: a config set with the send that started the task. */
  async catchUp(record: RunRecord, log: readonly LoggedEvent[], config: StoredPushConfig): Promise<void> {
    this.#enqueue(record, log, log, [config]);
  }

  async #push(record: RunRecord, log: readonly LoggedEvent[], entries: readonly LoggedEvent[]): Promise<void> {
    const configs = await this.#store.pushConfigs(record.id);
    if (configs.length > 0) this.#enqueue(record, log, entries, configs);
  }

  #enqueue(
    record: RunRecord,
    log: readonly LoggedEvent[],
    entries: readonly LoggedEvent[],
    configs: readonly StoredPushConfig[],
  ): void {
    const subject = subjectOf(record);
    const ctx = { taskId: record.id, contextId: contextIdOf(subject), log };
    for (const entry of entries) {
      const { seq } = entry.event;
      const events = taskEventsOf(entry, ctx);
      if (events.length === 0) continue;
      for (const config of configs) {
        const bodies =
          config.version === '1.0'
            ? events.map((event) => JSON.stringify(event))
            : [JSON.stringify(taskToV03(taskAt(subject, log, seq)))];
        bodies.forEach((body, index) => {
          this.#sender.enqueuePush(deliveryOf(record, entry, config, body, index));
        });
      }
    }
  }
}

/** The push of `body`, the `index`th of the run event at `entry`, to `config`. */
function deliveryOf(
  record: RunRecord,
  entry: LoggedEvent,
  config: StoredPushConfig,
  body: string,
  index: number,
): PushDelivery {
  const headers: Record<string, string> = {
    'content-type': config.version === '1.0' ? 'application/a2a+json' : 'application/json',
  };
  // Both, whenever set: v0.3 receivers (and the SDK's samples) check the token, v1.0 ones `Authorization`.
  if (config.token !== undefined) headers['x-a2a-notification-token'] = config.token;
  const { authentication } = config;
  if (authentication?.credentials !== undefined) {
    headers.authorization = `${authentication.scheme} ${authentication.credentials}`;
  }
  return {
    // The same on every attempt and on every instance that writes it: receivers drop repeats by it.
    id: `push_${record.id}_${entry.event.seq}_${index}_${config.id}`,
    runId: record.id,
    owner: record.owner,
    url: config.url,
    event: entry.event.event,
    seq: entry.event.seq,
    body,
    push: { taskId: record.id, configId: config.id, headers },
  };
}

/** The runs' webhook sink, with push notifications heard from the same runs. */
export function withPushNotifications(webhooks: WebhookSink, notifier: PushNotifier): WebhookSink {
  return {
    check: (webhook) => webhooks.check(webhook),
    watch(record, log) {
      webhooks.watch(record, log);
      notifier.watch(record, log);
    },
    deliverFrom(record, log, from) {
      webhooks.deliverFrom(record, log, from);
      notifier.deliverFrom(record, log, from);
    },
    deliveries: (runId) => webhooks.deliveries(runId),
    stop: (graceMs) => webhooks.stop(graceMs),
  };
}
