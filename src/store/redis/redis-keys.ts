import { createHash } from 'node:crypto';

/**
 * Every key of the Redis store, by name: what comes after the prefix (`RUNBRIDGE_REDIS_PREFIX`, so several
 * bridges can share one Redis without meeting), with `{…}` for the part that varies. The TypeScript side
 * reads keys through {@link RedisKeys}, the Lua scripts through the functions {@link luaKeyFunctions}
 * writes from this same table, so a key name is written once. `docs/deployment.md` lists what each holds.
 * One Redis, not a Cluster: the scripts touch keys of many runs at once.
 */
export const KEY_LAYOUT = {
  /** Hash: a run's record, snapshot, queue state, holder (and who ended it), last seq, byte counts and times. */
  run: 'run:{id}',
  /** Stream: a run's log, one entry per event (id `0-(seq+1)`, fields `e` event JSON and `d` detail JSON). */
  log: 'run:{id}:log',
  /** String: a queued run's sealed secrets, until the run has started. */
  secrets: 'run:{id}:secrets',
  /** Sorted set: an owner's runs by creation time. */
  owner: 'owner:{owner}',
  /** String: an idempotency key — `pending:<hash>` while its run is created, then `run:<hash>:<id>`. */
  idempotency: 'idem:{digest}',
  /** String (with an expiry): an instance's lease; its runs are lost once it is gone. */
  lease: 'lease:{instance}',
  /** Stream: control messages for the runs an instance executes. */
  control: 'ctl:{instance}',
  /** Sorted set: queued run ids by arrival. */
  queue: 'queue',
  /** Counter: the arrival order of the next queued run. */
  queueOrder: 'queue:seq',
  /** Hash: runs waiting in the queue, by owner. */
  queuedByOwner: 'queued:keys',
  /** Counter: bytes of the queued requests. */
  queuedBytes: 'queued:bytes',
  /** Hash: running run id → the instance executing it. */
  running: 'running',
  /** Hash: runs running, by owner. */
  runningByOwner: 'running:keys',
  /** Sorted set: finished run ids by when they finished. */
  finished: 'finished',
  /** Sorted set: an owner's finished run ids by when they finished (what a new run of theirs may make room from). */
  ownerFinished: 'finished:{owner}',
  /** Counter: bytes every stored run and batch record holds together. */
  storedBytes: 'bytes',
  /** Hash: bytes each owner's stored runs hold. */
  ownerBytes: 'bytes:owners',
  /** Hash: run id → the bytes it holds. */
  runBytes: 'sizes',
  /** Sorted set: pending webhook deliveries by when they are due (or their lease ends). */
  webhooksDue: 'wh:due',
  /** Sorted set: the same, of one key's runs only (the keys take turns at them). */
  ownerWebhooksDue: 'wh:due:{owner}',
  /** Set: the keys that have pending webhook deliveries. */
  webhookOwners: 'wh:owners',
  /** Hash: pending delivery id → the key whose queue holds it. */
  webhookOwnerOf: 'wh:owner',
  /** String: one webhook delivery, JSON (it expires a retention after it settled). */
  webhook: 'wh:d:{id}',
  /** List: the ids of a run's webhook deliveries, oldest first. */
  runWebhooks: 'wh:run:{id}',
  /** String: the secret shared by every instance when `RUNBRIDGE_SECRET` is not set. */
  secret: 'secret',
  /** String: written by every health check (`/health`, `/ready`), so a Redis that refuses writes is seen; expires in a minute. */
  health: 'health',
  /** Hash: a rollout batch's owner, record, pair count, records so far and their bytes, cancel and end times, why it stopped, idempotency key. */
  rollout: 'ro:{id}',
  /** Hash: a batch's pairs by number — `<run id>:<attempt>:<open|done>`. */
  rolloutPairs: 'ro:{id}:pairs',
  /** List: a batch's trajectory records (JSON), in the order they were settled; a record's seq is its index. */
  rolloutRecords: 'ro:{id}:records',
  /** List: each record's compact outcome (JSON), at the same index. */
  rolloutOutcomes: 'ro:{id}:outcomes',
  /** Sorted set: an owner's batches by creation time. */
  ownerRollouts: 'ro-owner:{owner}',
  /** Set: the batches that have not ended. */
  rolloutsOpen: 'ro-open',
  /** Sorted set: ended batches by when they ended. */
  rolloutsEnded: 'ro-ended',
  /** String: a batch's idempotency key — `<hash>:<batch id>`. */
  rolloutIdempotency: 'ro-idem:{digest}',
} as const;

type Layout = typeof KEY_LAYOUT;
type Fixed = { [K in keyof Layout]: Layout[K] extends `${string}{${string}` ? never : K }[keyof Layout];
type Varying = Exclude<keyof Layout, Fixed>;

/** The keys of the Redis store under one prefix (see {@link KEY_LAYOUT}). */
export class RedisKeys {
  constructor(readonly prefix: string) {}

  /** The key `name` of the layout with its varying part `part` (for keys that have one). */
  #key(name: Varying, part: string): string {
    return this.prefix + KEY_LAYOUT[name].replace(/\{\w+\}/, part);
  }

  /** A key of the layout without a varying part. */
  fixed(name: Fixed): string {
    return this.prefix + KEY_LAYOUT[name];
  }

  run(id: string): string {
    return this.#key('run', id);
  }

  log(id: string): string {
    return this.#key('log', id);
  }

  secrets(id: string): string {
    return this.#key('secrets', id);
  }

  owner(owner: string): string {
    return this.#key('owner', owner);
  }

  /** Hashed: idempotency keys are the caller's text, and a key name must not grow with it. */
  idempotency(owner: string, key: string): string {
    return this.#key('idempotency', createHash('sha256').update(`${owner}\0${key}`).digest('base64url'));
  }

  /** As {@link idempotency}, for the keys of `POST /v1/rollouts`: a caller's key names a run and a batch apart. */
  rolloutIdempotency(owner: string, key: string): string {
    return this.#key('rolloutIdempotency', createHash('sha256').update(`${owner}\0${key}`).digest('base64url'));
  }

  rollout(id: string): string {
    return this.#key('rollout', id);
  }

  rolloutPairs(id: string): string {
    return this.#key('rolloutPairs', id);
  }

  rolloutRecords(id: string): string {
    return this.#key('rolloutRecords', id);
  }

  rolloutOutcomes(id: string): string {
    return this.#key('rolloutOutcomes', id);
  }

  ownerRollouts(owner: string): string {
    return this.#key('ownerRollouts', owner);
  }

  lease(instance: string): string {
    return this.#key('lease', instance);
  }

  control(instance: string): string {
    return this.#key('control', instance);
  }

  ownerWebhooksDue(owner: string): string {
    return this.#key('ownerWebhooksDue', owner);
  }

  webhook(id: string): string {
    return this.#key('webhook', id);
  }

  runWebhooks(runId: string): string {
    return this.#key('runWebhooks', runId);
  }
}

/**
 * The key layout as Lua, for the prelude of every script: `K.queue` for a fixed key, `K.run(id)` for one
 * that varies, each under the prefix the script is given.
 */
export function luaKeyFunctions(prefixVariable: string): string {
  const lines = ['local K = {}'];
  for (const [name, layout] of Object.entries(KEY_LAYOUT)) {
    const parts = layout.split(/\{\w+\}/);
    if (parts.length === 1) {
      lines.push(`K.${name} = ${prefixVariable} .. '${layout}'`);
    } else {
      const [before, after] = parts as [string, string];
      lines.push(
        `K.${name} = function(part) return ${prefixVariable} .. '${before}' .. part${after ? ` .. '${after}'` : ''} end`,
      );
    }
  }
  return lines.join('\n');
}
