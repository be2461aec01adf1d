import type { ClaimShare, OutboxDelivery, WebhookOutbox } from '../../webhooks/webhook-outbox.js';

interface Held {
  delivery: OutboxDelivery;
  leasedUntil: number;
  expiresAt: number;
}

/**
 * Webhook deliveries in this process. A settled delivery is kept for `retentionMs` (as long as a
 * finished run), so the snapshot can show it; a pending one is kept until it settles.
 */
export class MemoryWebhookOutbox implements WebhookOutbox {
  readonly durable = false;
  readonly #deliveries = new Map<string, Held>();
  readonly #byRun = new Map<string, string[]>();
  readonly #retentionMs: number;
  /** The key that took the first turn of the last claim: the next claim's turns start after it. */
  #lastFirst = '';

  constructor(retentionMs: number) {
    this.#retentionMs = retentionMs;
  }

  async add(delivery: OutboxDelivery): Promise<void> {
    this.#deliveries.set(delivery.id, { delivery: { ...delivery }, leasedUntil: 0, expiresAt: Infinity });
    const ids = this.#byRun.get(delivery.runId) ?? [];
    ids.push(delivery.id);
    this.#byRun.set(delivery.runId, ids);
  }

  async claim(max: number, now: number, leaseMs: number, share?: ClaimShare): Promise<OutboxDelivery[]> {
    this.#expire(now);
    // Each key's due deliveries, its oldest due first.
    const due = new Map<string, Held[]>();
    for (const held of this.#deliveries.values()) {
      const { delivery } = held;
      if (delivery.status !== 'pending' || held.leasedUntil > now || (delivery.nextAttemptAt ?? 0) > now) continue;
      const queue = due.get(delivery.owner) ?? [];
      queue.push(held);
      due.set(delivery.owner, queue);
    }
    for (const queue of due.values())
      queue.sort((a, b) => (a.delivery.nextAttemptAt ?? 0) - (b.delivery.nextAttemptAt ?? 0));
    const owners = turnOrder([...due.keys()], this.#lastFirst);
    const left = new Map(owners.map((owner) => [owner, allowance(share, owner)]));
    const claimed: OutboxDelivery[] = [];
    for (let taking = true; taking && claimed.length < max; ) {
      taking = false;
      for (const owner of owners) {
        if (claimed.length >= max) break;
        const held = (left.get(owner) ?? 0) > 0 ? due.get(owner)?.shift() : undefined;
        if (held === undefined) continue;
        if (claimed.length === 0) this.#lastFirst = owner;
        left.set(owner, (left.get(owner) ?? 0) - 1);
        held.leasedUntil = now + leaseMs;
        claimed.push({ ...held.delivery });
        taking = true;
      }
    }
    return claimed;
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

/** `owners` in the order of their turns: sorted, starting with the first after `lastFirst` (then wrapping). */
function turnOrder(owners: string[], lastFirst: string): string[] {
  const sorted = owners.sort();
  const next = sorted.findIndex((owner) => owner > lastFirst);
  return next <= 0 ? sorted : [...sorted.slice(next), ...sorted.slice(0, next)];
}

/** How many more deliveries of `owner` may be taken now. */
function allowance(share: ClaimShare | undefined, owner: string): number {
  return share === undefined ? Number.POSITIVE_INFINITY : share.perOwner - (share.inFlight.get(owner) ?? 0);
}
