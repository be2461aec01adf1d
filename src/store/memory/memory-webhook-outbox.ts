import type { OutboxDelivery, WebhookOutbox } from '../../webhooks/webhook-outbox.js';

/**
 * Webhook deliveries in this process. A settled delivery is kept for `retentionMs` (as long as a
 * finished run), so the snapshot can show it; a pending one is kept until it settles.
 */
export class MemoryWebhookOutbox implements WebhookOutbox {
  readonly durable = false;
  readonly #deliveries = new Map<string, { delivery: OutboxDelivery; leasedUntil: number; expiresAt: number }>();
  readonly #byRun = new Map<string, string[]>();
  readonly #retentionMs: number;

  constructor(retentionMs: number) {
    this.#retentionMs = retentionMs;
  }

  async add(delivery: OutboxDelivery): Promise<void> {
    this.#deliveries.set(delivery.id, { delivery: { ...delivery }, leasedUntil: 0, expiresAt: Infinity });
    const ids = this.#byRun.get(delivery.runId) ?? [];
    ids.push(delivery.id);
    this.#byRun.set(delivery.runId, ids);
  }

  async claim(max: number, now: number, leaseMs: number): Promise<OutboxDelivery[]> {
    this.#expire(now);
    const due: OutboxDelivery[] = [];
    for (const held of this.#deliveries.values()) {
      if (due.length >= max) break;
      const { delivery } = held;
      if (delivery.status !== 'pending' || held.leasedUntil > now || (delivery.nextAttemptAt ?? 0) > now) continue;
      held.leasedUntil = now + leaseMs;
      due.push({ ...delivery });
    }
    return due;
  }

  async settle(delivery: OutboxDelivery): Promise<void> {
    const held = this.#deliveries.get(delivery.id);
    if (!held) return;
    held.delivery = { ...delivery };
    held.leasedUntil = 0;
    if (delivery.status !== 'pending') held.expiresAt = Date.now() + this.#retentionMs;
  }

  async list(runId: string): Promise<OutboxDelivery[]> {
    const ids = this.#byRun.get(runId) ?? [];
    return ids.flatMap((id) => {
      const held = this.#deliveries.get(id);
      return held ? [{ ...held.delivery }] : [];
    });
  }

  async nextDue(): Promise<number | undefined> {
    let next: number | undefined;
    for (const { delivery } of this.#deliveries.values()) {
      if (delivery.status !== 'pending') continue;
      const due = delivery.nextAttemptAt ?? 0;
      if (next === undefined || due < next) next = due;
    }
    return next;
  }

  /** Forgets settled deliveries past their retention. */
  #expire(now: number): void {
    for (const [id, held] of this.#deliveries) {
      if (held.expiresAt > now) continue;
      this.#deliveries.delete(id);
      const ids = this.#byRun.get(held.delivery.runId)?.filter((other) => other !== id) ?? [];
      if (ids.length === 0) this.#byRun.delete(held.delivery.runId);
      else this.#byRun.set(held.delivery.runId, ids);
    }
  }
}
