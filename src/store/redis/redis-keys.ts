import { createHash } from 'node:crypto';

/** What a key of the layout is in Redis, as `docs/deployment.md` names it. */
export type KeyType = 'hash' | 'stream' | 'string' | 'counter' | 'sorted set' | 'set' | 'list';

/** One key of the layout: its name after the prefix, `{…}` for the part that varies; its type; what it holds (Markdown). */
export interface KeyEntry {
  key: string;
  type: KeyType;
  holds: string;
}

/**
 * Every key of the Redis store, by name: what comes after the prefix (`RUNBRIDGE_REDIS_PREFIX`, so several
 * bridges can share one Redis without meeting), with `{…}` for the part that varies. The TypeScript side
 * reads keys through {@link RedisKeys}, the Lua scripts through the functions {@link luaKeyFunctions}
 * writes from this same table, and `npm run docs` writes the table of `docs/deployment.md` from it, so a
 * key is written once. One Redis, not a Cluster: the scripts touch keys of many runs at once.
 */
export const KEY_LAYOUT = {
  run: {
    key: 'run:{id}',
    type: 'hash',
    holds:
      "the run's record (request without secrets), its snapshot as `GET /v1/runs` lists it (waiting calls summarised, " +
      '[protocol §2.6](protocol.md#26-lists-summarise-the-calls-a-run-waits-on)), queue state, holder instance (and, ' +
      'once ended, whether by its holder), last seq, byte count, times',
  },
  log: {
    key: 'run:{id}:log',
    type: 'stream',
    holds:
      "the event log: one entry per event, entry id `0-<seq+1>`, field `e` the event's JSON, `d` its detail " +
      '([events](events.md#the-record-events-and-their-details))',
  },
  secrets: {
    key: 'run:{id}:secrets',
    type: 'string',
    holds: "a queued run's `secrets`, sealed (AES-256-GCM); deleted once the run has written its first event",
  },
  owner: { key: 'owner:{owner}', type: 'sorted set', holds: "a key's runs by creation time, for `GET /v1/runs`" },
  idempotency: {
    key: 'idem:{digest}',
    type: 'string',
    holds:
      "an `Idempotency-Key` (the digest of the API key's owner and the key): `pending:<hash>` while its run is " +
      'created, then `run:<hash>:<id>`',
  },
  lease: {
    key: 'lease:{instance}',
    type: 'string',
    holds: "an instance's lease, expiring after `RUNBRIDGE_LEASE_SECONDS`: its runs are lost once it is gone",
  },
  control: {
    key: 'ctl:{instance}',
    type: 'stream',
    holds: 'control messages for the runs an instance executes: cancels, decisions, messages',
  },
  queue: { key: 'queue', type: 'sorted set', holds: 'the shared queue: queued run ids by arrival, oldest first' },
  queueOrder: { key: 'queue:seq', type: 'counter', holds: 'the arrival order of the next queued run' },
  queuedByOwner: { key: 'queued:keys', type: 'hash', holds: 'runs waiting in the queue, by owner (the per-key quota)' },
  queuedBytes: { key: 'queued:bytes', type: 'counter', holds: 'bytes of the queued requests (their byte budget)' },
  running: { key: 'running', type: 'hash', holds: 'running run id → the instance executing it' },
  runningByOwner: { key: 'running:keys', type: 'hash', holds: "each key's running runs, on all instances" },
  finished: { key: 'finished', type: 'sorted set', holds: 'finished run ids by when they finished (retention)' },
  ownerFinished: {
    key: 'finished:{owner}',
    type: 'sorted set',
    holds: "an owner's finished run ids by when they finished: what a new run of theirs may make room from",
  },
  storedBytes: {
    key: 'bytes',
    type: 'counter',
    holds: 'bytes every stored run and batch record holds together (the byte budget)',
  },
  ownerBytes: { key: 'bytes:owners', type: 'hash', holds: "bytes each owner's stored runs hold (the key's share)" },
  runBytes: { key: 'sizes', type: 'hash', holds: 'run id → the bytes it holds' },
  webhooksDue: {
    key: 'wh:due',
    type: 'sorted set',
    holds: 'pending [webhook](webhooks.md) deliveries by when they are due (or their lease ends)',
  },
  ownerWebhooksDue: {
    key: 'wh:due:{owner}',
    type: 'sorted set',
    holds: "the same, of one key's runs only (the keys take turns at them)",
  },
  webhookOwners: { key: 'wh:owners', type: 'set', holds: 'the keys that have pending webhook deliveries' },
  webhookOwnerOf: { key: 'wh:owner', type: 'hash', holds: 'pending delivery id → the key whose queue holds it' },
  webhook: {
    key: 'wh:d:{id}',
    type: 'string',
    holds: 'one webhook delivery, JSON (it expires a retention after it settled)',
  },
  runWebhooks: { key: 'wh:run:{id}', type: 'list', holds: "the ids of a run's webhook deliveries, oldest first" },
  a2aPush: {
    key: 'a2a:push:{id}',
    type: 'hash',
    holds:
      "an [A2A](a2a.md#push-notifications) task's push notification configs by id, JSON (they expire with the run)",
  },
  a2aPushOrder: {
    key: 'a2a:push-order:{id}',
    type: 'list',
    holds: "the ids of a task's push configs, first stored first",
  },
  secret: {
    key: 'secret',
    type: 'string',
    holds: 'the secret every instance shares when `RUNBRIDGE_SECRET` is not set',
  },
  health: {
    key: 'health',
    type: 'string',
    holds:
      'written by every `/health` and `/ready` check, expiring a minute later: a Redis that refuses writes fails the check',
  },
  rollout: {
    key: 'ro:{id}',
    type: 'hash',
    holds:
      'a [rollout batch](rollouts.md#the-service): its owner, record, pair count, records so far and the bytes they hold, ' +
      'cancel and end times, why it was stopped, idempotency key',
  },
  rolloutPairs: {
    key: 'ro:{id}:pairs',
    type: 'hash',
    holds: 'where each pair of the batch stands, by number: `<run id>:<attempt>:<open|done>`',
  },
  rolloutRecords: {
    key: 'ro:{id}:records',
    type: 'list',
    holds: "the batch's trajectory records (JSON) in the order they were settled; a record's seq is its index",
  },
  rolloutOutcomes: {
    key: 'ro:{id}:outcomes',
    type: 'list',
    holds: "each record's compact outcome (JSON) at the same index, for the batch's statistics",
  },
  ownerRollouts: { key: 'ro-owner:{owner}', type: 'sorted set', holds: "an owner's batches by creation time" },
  rolloutsOpen: { key: 'ro-open', type: 'set', holds: 'the batches that have not ended (the sweep mends their pairs)' },
  rolloutsEnded: { key: 'ro-ended', type: 'sorted set', holds: 'ended batches by when they ended (retention)' },
  rolloutIdempotency: {
    key: 'ro-idem:{digest}',
    type: 'string',
    holds: "a batch's `Idempotency-Key`: `<hash>:<batch id>`",
  },
} as const satisfies Record<string, KeyEntry>;

type Layout = typeof KEY_LAYOUT;
type Fixed = { [K in keyof Layout]: Layout[K]['key'] extends `${string}{${string}` ? never : K }[keyof Layout];
type Varying = Exclude<keyof Layout, Fixed>;

/** Keys whose varying part is a digest of the caller's text: {@link RedisKeys} hashes it, with a method each. */
const HASHED = ['idempotency', 'rolloutIdempotency'] as const;
type Hashed = (typeof HASHED)[number];

/** For each other key of the layout that varies, the function that names it from its part: `keys.run(id)`. */
type KeyNamers = { readonly [Name in Exclude<Varying, Hashed>]: (part: string) => string };
type KeyNamersClass = new (prefix: string) => KeyNamers;

/** Key `layout` of the table under `prefix`, its `{…}` part filled with `part`. */
function keyWith(prefix: string, layout: string, part: string): string {
  return prefix + layout.replace(/\{\w+\}/, part);
}

/**
 * Writes {@link KeyNamers} from the layout, as {@link luaKeyFunctions} writes the scripts' own, so a key
 * added to `KEY_LAYOUT` is named alike on both sides without a method written for it by hand.
 */
const LayoutKeyNamers = class {
  constructor(prefix: string) {
    for (const [name, { key }] of Object.entries(KEY_LAYOUT)) {
      if (!key.includes('{') || (HASHED as readonly string[]).includes(name)) continue;
      Object.defineProperty(this, name, { value: (part: string) => keyWith(prefix, key, part) });
    }
  }
} as KeyNamersClass;

/** The keys of the Redis store under one prefix (see {@link KEY_LAYOUT}). */
export class RedisKeys extends LayoutKeyNamers {
  constructor(readonly prefix: string) {
    super(prefix);
  }

  /** A key of the layout without a varying part. */
  fixed(name: Fixed): string {
    return this.prefix + KEY_LAYOUT[name].key;
  }

  /** Hashed: idempotency keys are the caller's text, and a key name must not grow with it. */
  idempotency(owner: string, key: string): string {
    return this.#hashed('idempotency', owner, key);
  }

  /** As {@link idempotency}, for the keys of `POST /v1/rollouts`: a caller's key names a run and a batch apart. */
  rolloutIdempotency(owner: string, key: string): string {
    return this.#hashed('rolloutIdempotency', owner, key);
  }

  #hashed(name: Hashed, owner: string, key: string): string {
    const digest = createHash('sha256').update(`${owner}\0${key}`).digest('base64url');
    return keyWith(this.prefix, KEY_LAYOUT[name].key, digest);
  }
}

/**
 * The key layout as Lua, for the prelude of every script: `K.queue` for a fixed key, `K.run(id)` for one
 * that varies, each under the prefix the script is given.
 */
export function luaKeyFunctions(prefixVariable: string): string {
  const lines = ['local K = {}'];
  for (const [name, { key: layout }] of Object.entries(KEY_LAYOUT)) {
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
