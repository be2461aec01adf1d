import type { ClaimShare, OutboxDelivery, WebhookOutbox } from '../../webhooks/webhook-outbox.js';
import type { RedisConnection } from './redis-connection.js';
import type { RedisKeys } from './redis-keys.js';

/**
 * Webhook deliveries in the shared Redis: every instance claims due ones (`rbClaimWebhooks`, under a
 * lease), so a delivery pending when its instance stops or dies is sent by another, or by this one
 * once restarted; each key's pending deliveries are queued apart as well, so the keys take turns. A
 * settled delivery, and a run's list of them, expire a retention later.
 */
export class RedisWebhookOutbox implements WebhookOutbox {
  readonly durable = true;
  readonly #connection: RedisConnection;
  readonly #keys: RedisKeys;
  readonly #retentionMs: number;
  /** The key that took the first turn of this instance's last claim: the next claim's turns start after it. */
  #lastFirst = '';

  constructor(connection: RedisConnection, keys: RedisKeys, retentionMs: number) {
    this.#connection = connection;
    this.#keys = keys;
    this.#retentionMs = retentionMs;
  }

  async add(delivery: OutboxDelivery): Promise<void> {
    const keys = this.#keys;
    const list = keys.runWebhooks(delivery.runId);
    await this.#connection.run(() =>
      this.#connection.command
        .multi()
        .set(keys.webhook(delivery.id), JSON.stringify(delivery))
        .zadd(keys.fixed('webhooksDue'), delivery.nextAttemptAt ?? 0, delivery.id)
        .zadd(keys.ownerWebhooksDue(delivery.owner), delivery.nextAttemptAt ?? 0, delivery.id)
        .sadd(keys.fixed('webhookOwners'), delivery.owner)
        .hset(keys.fixed('webhookOwnerOf'), delivery.id, delivery.owner)
        .rpush(list, delivery.id)
        .pexpire(list, this.#retentionMs)
        .exec(),
    );
  }

  async claim(max: number, now: number, leaseMs: number, share?: ClaimShare): Promise<OutboxDelivery[]> {
    const [first, ...records] = (await this.#connection.script(
      'rbClaimWebhooks',
      this.#keys.prefix,
      {
        now,
        max,
        leaseUntil: now + leaseMs,
        perOwner: share?.perOwner ?? Number.MAX_SAFE_INTEGER,
        lastFirst: this.#lastFirst,
      },
      [...(share?.inFlight ?? [])].flat(),
    )) as string[];
    if (records.length > 0) this.#lastFirst = first ?? '';
    // A delivery queued by a version without keys' turns has no owner: it is the key ''.
    return records.map((record) => {
      const delivery = JSON.parse(record) as Omit<OutboxDelivery, 'owner'> & { owner?: string };
      return { ...delivery, owner: delivery.owner ?? '' };
    });
  }

  async settle(delivery: OutboxDelivery): Promise<void> {
    const keys = this.#keys;
    const record = JSON.stringify(delivery);
    const list = keys.runWebhooks(delivery.runId);
    await this.#connection.run(() => {
      const batch = this.#connection.command.multi();
      if (delivery.status === 'pending') {
        batch
          .set(keys.webhook(delivery.id), record)
          .zadd(keys.fixed('webhooksDue'), delivery.nextAttemptAt ?? 0, delivery.id)
          .zadd(keys.ownerWebhooksDue(delivery.owner), delivery.nextAttemptAt ?? 0, delivery.id);
      } else {
        batch
          .set(keys.webhook(delivery.id), record, 'PX', this.#retentionMs)
          .zrem(keys.fixed('webhooksDue'), delivery.id)
          .zrem(keys.ownerWebhooksDue(delivery.owner), delivery.id)
          .hdel(keys.fixed('webhookOwnerOf'), delivery.id);
      }
      return batch.pexpire(list, this.#retentionMs).exec();
    });
  }

  async list(runId: string): Promise<OutboxDelivery[]> {
    const command = this.#connection.command;
    const ids = await this.#connection.run(() => command.lrange(this.#keys.runWebhooks(runId), 0, -1));
    if (ids.length === 0) return [];
    const records = await this.#connection.run(() => command.mget(ids.map((id) => this.#keys.webhook(id))));
    return records.flatMap((record) => (record === null ? [] : [JSON.parse(record) as OutboxDelivery]));
  }

  async nextDue(): Promise<number | undefined> {
    const first = await this.#connection.run(() =>
      this.#connection.command.zrange(this.#keys.fixed('webhooksDue'), 0, 0, 'WITHSCORES'),
    );
    return first.length < 2 ? undefined : Number(first[1]);
  }
}
