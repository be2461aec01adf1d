import { createHash } from 'node:crypto';

/**
 * The keys of the Redis store, all under one prefix (`RUNBRIDGE_REDIS_PREFIX`), so several bridges
 * can share one Redis without meeting. `docs/deployment.md` lists what each holds. One Redis, not a
 * Cluster: the scripts touch keys of many runs at once.
 */
export class RedisKeys {
  constructor(readonly prefix: string) {}

  /** Hash: a run's record, snapshot, status, holder, last seq, byte counts and times. */
  run(id: string): string {
    return `${this.prefix}run:${id}`;
  }

  /** Stream: a run's log, one entry per event (id `0-(seq+1)`, fields `e` event JSON and `d` detail JSON). */
  log(id: string): string {
    return `${this.prefix}run:${id}:log`;
  }

  /** String: a queued run's sealed secrets, until the run has started. */
  secrets(id: string): string {
    return `${this.prefix}run:${id}:secrets`;
  }

  /** Sorted set: an owner's runs by creation time. */
  owner(owner: string): string {
    return `${this.prefix}owner:${owner}`;
  }

  /** String: an idempotency key — `pending:<hash>` while its run is created, then `run:<hash>:<id>`. */
  idempotency(owner: string, key: string): string {
    // Hashed: keys are the caller's text, and a key name must not grow with it.
    return `${this.prefix}idem:${createHash('sha256').update(`${owner}\0${key}`).digest('base64url')}`;
  }

  /** String (with an expiry): an instance's lease; its runs are lost once it is gone. */
  lease(instance: string): string {
    return `${this.prefix}lease:${instance}`;
  }

  /** Stream: control messages for the runs an instance executes. */
  control(instance: string): string {
    return `${this.prefix}ctl:${instance}`;
  }

  /** Sorted set: pending webhook deliveries by when they are due (or their lease ends). */
  get webhooksDue(): string {
    return `${this.prefix}wh:due`;
  }

  /** String: one webhook delivery, JSON (it expires a retention after it settled). */
  webhook(id: string): string {
    return `${this.prefix}wh:d:${id}`;
  }

  /** List: the ids of a run's webhook deliveries, oldest first. */
  runWebhooks(runId: string): string {
    return `${this.prefix}wh:run:${runId}`;
  }

  /** String: the secret shared by every instance when `RUNBRIDGE_SECRET` is not set. */
  get secret(): string {
    return `${this.prefix}secret`;
  }
}
