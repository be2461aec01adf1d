import type { RunSnapshot } from '../../protocol/run-snapshot.js';
import { Run, type RunRecord } from '../../runs/run.js';
import type {
  Admission,
  ClaimedRun,
  ControlMessage,
  KeyClaim,
  NewRun,
  RunExecutor,
  RunListQuery,
  RunPage,
  RunStats,
  RunStore,
  StoredSnapshot,
  StoreLimits,
} from '../run-store.js';
import { InstanceLeases } from './instance-leases.js';
import { listRuns } from './list-runs.js';
import type { RedisConnection } from './redis-connection.js';
import { RedisKeys } from './redis-keys.js';
import { refusal } from './refusal.js';
import { RunLogWriter } from './run-log-writer.js';
import { RunMirrors } from './run-mirrors.js';
import type { SealedSecrets } from './sealed-secrets.js';
import { type StreamEntry, StreamFollower } from './stream-follower.js';

export interface RedisRunStoreOptions {
  connection: RedisConnection;
  prefix: string;
  /** This instance's id, unique per process. */
  instance: string;
  limits: StoreLimits;
  leaseMs: number;
  /** `RUNBRIDGE_QUEUE_POLL_SECONDS`: how often an instance with free slots looks for queued runs others could not start. */
  queuePollMs: number;
  maxEventsPerRun: number;
  /** Seals the secrets of queued runs with the instances' shared secret. */
  secrets: SealedSecrets;
  now?: () => number;
  log?: (message: string, error?: unknown) => void;
}

/** Finished runs' keys outlive their retention by this much: the sweep forgets them first, expiry is the net. */
const EXPIRY_MARGIN_MS = 60_000;
/** How long an idempotency key stays pending while its run is created. */
const PENDING_KEY_MS = 60_000;
/** Touches of one run are passed to Redis at most this often from one instance. */
const TOUCH_EVERY_MS = 1000;

/**
 * The shared store (docs/protocol.md §8): runs, logs, keys, queue, quotas, control messages and leases in
 * one Redis, so any number of instances serve any run. The runs this instance executes are written
 * through by {@link RunLogWriter}; runs it only serves are read through {@link RunMirrors}; control
 * messages for its runs arrive on its own control Stream; {@link InstanceLeases} ends the runs of
 * instances that died. `docs/deployment.md` tells what survives which failure.
 */
export class RedisRunStore implements RunStore {
  readonly #o: RedisRunStoreOptions;
  readonly #now: () => number;
  readonly #log: (message: string, error?: unknown) => void;
  readonly #keys: RedisKeys;
  readonly #connection: RedisConnection;
  readonly #follower: StreamFollower;
  readonly #mirrors: RunMirrors;
  readonly #leases: InstanceLeases;
  /** Runs this instance executes, with their writers. */
  readonly #active = new Map<string, { run: Run; writer: RunLogWriter }>();
  readonly #touched = new Map<string, number>();
  readonly #poll: NodeJS.Timeout;
  #executor: RunExecutor | undefined;

  constructor(options: RedisRunStoreOptions) {
    this.#o = options;
    this.#now = options.now ?? Date.now;
    this.#log = options.log ?? ((message, error) => console.error(message, error ?? ''));
    this.#keys = new RedisKeys(options.prefix);
    this.#connection = options.connection;
    this.#follower = new StreamFollower(this.#connection, () => this.#mirrors.interruptAll());
    this.#mirrors = new RunMirrors({
      connection: this.#connection,
      keys: this.#keys,
      follower: this.#follower,
      now: this.#now,
      touch: (id) => void this.touch(id).catch(() => undefined),
    });
    this.#leases = new InstanceLeases({
      connection: this.#connection,
      keys: this.#keys,
      instance: options.instance,
      leaseMs: options.leaseMs,
      expireMs: this.#expireMs,
      now: this.#now,
      log: this.#log,
    });
    this.#follower.follow(this.#keys.control(options.instance), '0-0', (entries) => this.#onControl(entries), true);
    this.#poll = setInterval(() => {
      if (this.#executor && this.#executor.freeSlots() > 0) this.#executor.wake();
    }, options.queuePollMs);
    this.#poll.unref();
  }

  get #expireMs(): number {
    return this.#o.limits.retentionMs + EXPIRY_MARGIN_MS;
  }

  attach(executor: RunExecutor): void {
    this.#executor = executor;
    void this.#leases.renew().catch(() => undefined);
  }

  async claimKey(owner: string, key: string, hash: string): Promise<KeyClaim> {
    const reply = (await this.#connection.script(
      'rbClaimKey',
      this.#keys.prefix,
      this.#keys.idempotency(owner, key),
      hash,
      PENDING_KEY_MS,
    )) as string[];
    switch (reply[0]) {
      case 'claimed':
        return { kind: 'claimed' };
      case 'run':
        return { kind: 'run', runId: reply[1]! };
      case 'conflict':
        return { kind: 'conflict' };
      default:
        // Another instance is creating it: ask again shortly.
        return { kind: 'pending', settled: new Promise((resolve) => setTimeout(resolve, 25)) };
    }
  }

  async releaseKey(owner: string, key: string): Promise<void> {
    await this.#connection.script('rbReleaseKey', this.#keys.prefix, this.#keys.idempotency(owner, key));
  }

  async submit(entry: NewRun): Promise<Admission> {
    const { run, secrets, idempotencyKey } = entry;
    const { limits } = this.#o;
    const keyName = idempotencyKey === undefined ? '' : this.#keys.idempotency(run.owner, idempotencyKey);
    const reply = (await this.#connection.script(
      'rbSubmit',
      this.#keys.prefix,
      run.id,
      run.owner,
      JSON.stringify(run.record),
      JSON.stringify(run.snapshot()),
      run.createdAt,
      run.storedBytes,
      entry.requestBytes,
      keyName,
      keyName === '' ? '' : `run:${entry.idempotencyHash}:${run.id}`,
      entry.startHere ? 1 : 0,
      this.#o.instance,
      limits.maxQueuedRuns,
      limits.maxRunningPerKey,
      limits.maxQueuedPerKey,
      limits.maxQueuedBytes,
      limits.maxStoredBytes,
      // Kept until the run has written its first event, so a run whose instance died before that can start elsewhere.
      secrets === undefined ? '' : this.#o.secrets.seal(run.id, secrets),
    )) as Array<string | number>;
    if (reply[0] === 'refused') return refusal(String(reply[1]), Number(reply[2]), Number(reply[3]));
    return { kind: reply[0] === 'started' ? 'started' : 'queued' };
  }

  async claim(max: number): Promise<ClaimedRun[]> {
    const reply = (await this.#connection.script(
      'rbClaim',
      this.#keys.prefix,
      this.#o.instance,
      max,
      this.#o.limits.maxRunningPerKey,
    )) as string[][];
    return reply.map((taken) => this.#claimed(taken));
  }

  async unqueue(id: string): Promise<ClaimedRun | undefined> {
    const reply = (await this.#connection.script('rbUnqueue', this.#keys.prefix, id, this.#o.instance)) as string[];
    return reply.length === 0 ? undefined : this.#claimed(reply);
  }

  track(run: Run): Promise<void> {
    const writer = new RunLogWriter(run, {
      connection: this.#connection,
      keys: this.#keys,
      instance: this.#o.instance,
      expireMs: this.#expireMs,
      onFenced: (why) => {
        this.#log(`run ${run.id} was ended elsewhere (${why}); this instance stops it.`);
        this.#executor?.abandon(run.id);
      },
      log: this.#log,
    });
    this.#active.set(run.id, { run, writer });
    return writer.done.then((outcome) => {
      this.#active.delete(run.id);
      // Only a log the store holds whole is a faithful copy; a refused one ended differently there.
      if (outcome === 'stored') this.#mirrors.adopt(run);
    });
  }

  async open(id: string): Promise<Run | undefined> {
    return this.#active.get(id)?.run ?? this.#mirrors.open(id);
  }

  async snapshot(id: string): Promise<StoredSnapshot | undefined> {
    const active = this.#active.get(id)?.run;
    if (active) return { owner: active.owner, snapshot: active.snapshot() };
    const [owner, json] = await this.#connection.run(() =>
      this.#connection.command.hmget(this.#keys.run(id), 'owner', 'snapshot'),
    );
    if (!owner || !json) return undefined;
    return { owner, snapshot: JSON.parse(json) as RunSnapshot };
  }

  list(owner: string, query: RunListQuery): Promise<RunPage> {
    return listRuns(this.#connection, this.#keys, owner, query);
  }

  async touch(id: string): Promise<void> {
    const now = this.#now();
    const active = this.#active.get(id)?.run;
    if (active) return active.touch(now);
    // A stream touches its run at every keep-alive; Redis hears of it once a second at most.
    if (now - (this.#touched.get(id) ?? 0) < TOUCH_EVERY_MS) return;
    this.#touched.set(id, now);
    await this.#connection.script('rbTouch', this.#keys.prefix, id, now);
  }

  async forget(id: string): Promise<void> {
    // A run that just ended here may still be on its way to Redis, where it still reads as running and
    // the script would keep it: forget it once its whole log is stored.
    await this.#active.get(id)?.writer.done;
    await this.#connection.script('rbForget', this.#keys.prefix, id);
    this.#mirrors.forget(id);
  }

  async control(id: string, message: ControlMessage): Promise<void> {
    if (this.#active.has(id)) return this.#executor?.control(id, message);
    const holder = await this.#connection.run(() => this.#connection.command.hget(this.#keys.run(id), 'holder'));
    if (!holder) return;
    await this.#connection.run(() =>
      this.#connection.command.xadd(
        this.#keys.control(holder),
        'MAXLEN',
        '~',
        1000,
        '*',
        'run',
        id,
        'message',
        JSON.stringify(message),
      ),
    );
  }

  async sweep(): Promise<{ orphans: string[] }> {
    const now = this.#now();
    const { retentionMs, maxStoredBytes } = this.#o.limits;
    this.#mirrors.sweep();
    for (const [id, at] of this.#touched) if (now - at > TOUCH_EVERY_MS) this.#touched.delete(id);
    await this.#connection.script('rbSweep', this.#keys.prefix, now - retentionMs, maxStoredBytes, 1000);
    await this.#leases.endLostRuns();
    return { orphans: await this.#orphans(now) };
  }

  async stats(): Promise<RunStats> {
    const p = this.#keys.prefix;
    const [running, queued, finished] = await this.#connection.run(() =>
      Promise.all([
        this.#connection.command.hlen(`${p}running`),
        this.#connection.command.zcard(`${p}queue`),
        this.#connection.command.zcard(`${p}finished`),
      ]),
    );
    return { running, queued, finished, subscribers: this.localStats().subscribers };
  }

  localStats(): RunStats {
    let subscribers = this.#mirrors.subscribers;
    for (const { run } of this.#active.values()) subscribers += run.subscribers;
    return { running: this.#active.size, queued: 0, finished: 0, subscribers };
  }

  async abandon(): Promise<ClaimedRun[]> {
    // Queued runs stay in the shared queue: another instance starts them.
    return [];
  }

  async close(): Promise<void> {
    clearInterval(this.#poll);
    for (const { writer } of this.#active.values()) writer.close();
    await this.#leases.release();
    await this.#follower.stop();
    this.#mirrors.interruptAll();
    await this.#connection.close();
  }

  #claimed([id, recordJson, sealed]: string[]): ClaimedRun {
    const record = JSON.parse(recordJson!) as RunRecord;
    const run = new Run(record, { maxEvents: this.#o.maxEventsPerRun, now: this.#now });
    let secrets: Record<string, unknown> | undefined;
    try {
      secrets = sealed ? this.#o.secrets.unseal(id!, sealed) : undefined;
    } catch (error) {
      // Sealed under another secret: the instances do not share RUNBRIDGE_SECRET.
      this.#log(
        `the secrets of run ${id} could not be opened (is RUNBRIDGE_SECRET the same on every instance?)`,
        error,
      );
    }
    return { run, secrets };
  }

  #onControl(entries: StreamEntry[]): void {
    for (const [, fields] of entries) {
      const values = new Map<string, string>();
      for (let i = 0; i < fields.length; i += 2) values.set(fields[i]!, fields[i + 1]!);
      const id = values.get('run');
      const message = values.get('message');
      if (id && message) this.#executor?.control(id, JSON.parse(message) as ControlMessage);
    }
  }

  /** Runs nobody watched or asked about within the orphan TTL: queued ones, and those running here. */
  async #orphans(now: number): Promise<string[]> {
    const ttl = this.#o.limits.orphanTtlMs;
    const orphans: string[] = [];
    const candidates = [...this.#active.values()]
      .map(({ run }) => run)
      .filter((run) => !run.finished && run.subscribers === 0 && now - run.lastTouchedAt >= ttl);
    const queued = await this.#connection.run(() =>
      this.#connection.command.zrange(`${this.#keys.prefix}queue`, 0, -1),
    );
    const ids = [...candidates.map((run) => run.id), ...queued];
    if (ids.length === 0) return orphans;
    const pipeline = this.#connection.command.pipeline();
    for (const id of ids) pipeline.hget(this.#keys.run(id), 'touched_at');
    const replies = (await this.#connection.run(() => pipeline.exec())) ?? [];
    for (const [position, id] of ids.entries()) {
      const touched = Number(replies[position]?.[1] ?? 0);
      const local = this.#active.get(id)?.run;
      // Another instance's stream or request touched it: it is watched.
      if (local && touched > local.lastTouchedAt) local.touch(touched);
      if (now - Math.max(touched, local?.lastTouchedAt ?? 0) >= ttl) orphans.push(id);
    }
    return orphans;
  }
}
