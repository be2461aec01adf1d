import type { RunListItem } from '../../protocol/run-snapshot.js';
import { isWaitingStatus } from '../../protocol/run-status.js';
import type { EventLog } from '../../runs/event-log.js';
import { newRunLog, type RunRecord, recordBytes } from '../../runs/run-record.js';
import type {
  Admission,
  ClaimedRun,
  KeyClaim,
  NewRun,
  RunCounts,
  RunListQuery,
  RunPage,
  RunStore,
  StoredSnapshot,
  StoreLimits,
} from '../../runs/run-store.js';
import type { EndedRun } from '../../runs/run-streams.js';
import { listItemOf, snapshotOf } from '../../runs/snapshot-of.js';
import { StoreUnavailableError } from '../../runs/store-unavailable-error.js';
import { type Logger, silentLogger } from '../../telemetry/logger.js';
import { runLogFields } from '../../telemetry/run-log-fields.js';
import { Listeners } from '../listeners.js';
import { keyQueueFull, keyStoreFull, queueBytesFull, queueFull, type Refusal, storeFull } from '../refusals.js';
import { InstanceLeases } from './instance-leases.js';
import { listRuns } from './list-runs.js';
import { LocalRuns } from './local-runs.js';
import type { RedisConnection } from './redis-connection.js';
import { RedisKeys } from './redis-keys.js';
import { RedisRunStreams } from './redis-run-streams.js';
import { RunMirrors } from './run-mirrors.js';
import type { SealedSecrets } from './sealed-secrets.js';
import type { SharedSecret } from './shared-secret.js';
import { StreamFollower } from './stream-follower.js';

export interface RedisRunStoreOptions {
  connection: RedisConnection;
  prefix: string;
  /** This instance's id, unique per process. */
  instance: string;
  limits: StoreLimits;
  leaseMs: number;
  /** `RUNBRIDGE_QUEUE_POLL_SECONDS`: how often an instance with free slots looks for queued runs others could not start. */
  queuePollMs: number;
  /** Seals the secrets of queued runs with the instances' shared secret. */
  secrets: SealedSecrets;
  /** That secret when it is kept in Redis (no `RUNBRIDGE_SECRET`): the store is unfit once it is no longer the shared one. */
  sharedSecret?: SharedSecret;
  now?: () => number;
  log?: Logger;
}

/** Finished runs' keys outlive their retention by this much: the sweep forgets them first, expiry is the net. */
export const EXPIRY_MARGIN_MS = 60_000;
/** How long an idempotency key stays pending while its run is created. */
const PENDING_KEY_MS = 60_000;

/**
 * The shared store (docs/protocol.md §8): runs, logs, keys, queue, quotas, control messages and leases in
 * one Redis, so any number of instances serve any run. This is its record side; its live side,
 * {@link RedisRunStreams} (`streams`), writes and follows the logs and carries the control messages.
 * {@link InstanceLeases} ends the runs no live instance executes. `docs/deployment.md` tells what survives
 * which failure.
 */
export class RedisRunStore implements RunStore {
  readonly #o: RedisRunStoreOptions;
  readonly #now: () => number;
  readonly #log: Logger;
  readonly #keys: RedisKeys;
  readonly #connection: RedisConnection;
  readonly #follower: StreamFollower;
  readonly #mirrors: RunMirrors;
  readonly #leases: InstanceLeases;
  /** The runs this instance executes, and its touches of others. */
  readonly #local: LocalRuns;
  readonly #claimable = new Listeners<[]>();
  readonly #poll: NodeJS.Timeout;
  /** The live side of these runs: their logs as they are written and followed, and their control messages. */
  readonly streams: RedisRunStreams;

  constructor(options: RedisRunStoreOptions) {
    this.#o = options;
    this.#now = options.now ?? Date.now;
    this.#log = options.log ?? silentLogger;
    this.#keys = new RedisKeys(options.prefix);
    this.#connection = options.connection;
    this.#follower = new StreamFollower(this.#connection, () => this.#mirrors.interruptAll());
    this.#mirrors = new RunMirrors({
      connection: this.#connection,
      keys: this.#keys,
      follower: this.#follower,
      now: this.#now,
      wakeMs: options.limits.streamFlushMs,
    });
    this.#local = new LocalRuns({ connection: this.#connection, keys: this.#keys, now: this.#now });
    const ended = new Listeners<[EndedRun]>();
    this.#leases = new InstanceLeases({
      connection: this.#connection,
      keys: this.#keys,
      instance: options.instance,
      leaseMs: options.leaseMs,
      expireMs: this.#expireMs,
      now: this.#now,
      log: this.#log,
      onRenewed: () => this.#writeBackRunsWithoutRecord(),
      executes: (id) => this.#local.executed.has(id),
      onEnded: (run) => ended.tell(run),
    });
    this.streams = new RedisRunStreams({
      connection: this.#connection,
      keys: this.#keys,
      instance: options.instance,
      expireMs: this.#expireMs,
      now: this.#now,
      log: this.#log,
      follower: this.#follower,
      mirrors: this.#mirrors,
      local: this.#local,
      ended,
    });
    // Others queue runs and free their keys' quotas without telling anyone: look again every so often.
    this.#poll = setInterval(() => this.#claimable.tell(), options.queuePollMs);
    this.#poll.unref();
    void this.#leases.renew().catch(() => undefined);
  }

  get #expireMs(): number {
    return this.#o.limits.retentionMs + EXPIRY_MARGIN_MS;
  }

  async claimKey(owner: string, key: string, hash: string): Promise<KeyClaim> {
    const reply = (await this.#connection.script('rbClaimKey', this.#keys.prefix, {
      key: this.#keys.idempotency(owner, key),
      hash,
      pendingMs: PENDING_KEY_MS,
    })) as string[];
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
    await this.#connection.script('rbReleaseKey', this.#keys.prefix, { key: this.#keys.idempotency(owner, key) });
  }

  async submit(entry: NewRun): Promise<Admission> {
    const { record, secrets, idempotency } = entry;
    const { limits } = this.#o;
    const keyName = idempotency === undefined ? '' : this.#keys.idempotency(record.owner, idempotency.key);
    const log = this.#newLog(record);
    const reply = (await this.#connection.script('rbSubmit', this.#keys.prefix, {
      id: record.id,
      owner: record.owner,
      record: JSON.stringify(record),
      snapshot: JSON.stringify(listItemOf(record, log)),
      createdAt: record.createdAt,
      storedBytes: recordBytes(record),
      requestBytes: entry.requestBytes,
      idemKey: keyName,
      idemValue: idempotency === undefined ? '' : `run:${idempotency.hash}:${record.id}`,
      startHere: entry.startHere ? 1 : 0,
      instance: this.#o.instance,
      maxQueued: limits.maxQueuedRuns,
      maxRunningPerKey: limits.maxRunningPerKey,
      maxQueuedPerKey: limits.maxQueuedPerKey,
      maxQueuedBytes: limits.maxQueuedBytes,
      maxStoredBytes: limits.maxStoredBytes,
      maxStoredBytesPerKey: limits.maxStoredBytesPerKey,
      // Kept until the run has written its first event, so a run whose instance died before that can start elsewhere.
      sealedSecrets: secrets === undefined ? '' : this.#o.secrets.seal(record.id, secrets),
      // The pairs of a rollout batch are listed under their batch, not among the owner's runs.
      listed: record.rollout === undefined ? 1 : 0,
    })) as Array<string | number>;
    if (reply[0] === 'refused') return this.#refusal(String(reply[1]), Number(reply[2]), entry.requestBytes);
    return reply[0] === 'started' ? { kind: 'started', log } : { kind: 'queued' };
  }

  async claim(max: number): Promise<ClaimedRun[]> {
    const reply = (await this.#connection.script('rbClaim', this.#keys.prefix, {
      instance: this.#o.instance,
      max,
      maxRunningPerKey: this.#o.limits.maxRunningPerKey,
    })) as string[][];
    return reply.map((taken) => this.#claimed(taken));
  }

  async unqueue(id: string): Promise<ClaimedRun | undefined> {
    const reply = (await this.#connection.script('rbUnqueue', this.#keys.prefix, {
      id,
      instance: this.#o.instance,
    })) as string[];
    return reply.length === 0 ? undefined : this.#claimed(reply);
  }

  async queueRoom(owner: string): Promise<number> {
    const { maxQueuedRuns, maxQueuedPerKey } = this.#o.limits;
    const [queued, mine] = await this.#connection.run(() =>
      Promise.all([
        this.#connection.command.zcard(this.#keys.fixed('queue')),
        this.#connection.command.hget(this.#keys.fixed('queuedByOwner'), owner),
      ]),
    );
    return Math.max(0, Math.min(maxQueuedRuns - queued, maxQueuedPerKey - Number(mine ?? 0)));
  }

  onClaimable(listener: () => void): () => void {
    return this.#claimable.add(listener);
  }

  async abandon(): Promise<ClaimedRun[]> {
    // Queued runs stay in the shared queue: another instance starts them.
    return [];
  }

  async snapshot(id: string): Promise<StoredSnapshot | undefined> {
    const executed = this.#local.executed.get(id);
    if (executed) return { owner: executed.record.owner, snapshot: snapshotOf(executed.record, executed.log) };
    const [owner, json] = await this.#connection.run(() =>
      this.#connection.command.hmget(this.#keys.run(id), 'owner', 'snapshot'),
    );
    if (!owner || !json) return undefined;
    const listed = JSON.parse(json) as RunListItem;
    // Redis keeps the run as lists show it; only the calls it waits on differ from the snapshot, and
    // their arguments are in its log (docs/protocol.md §2.6).
    if (listed.pending_approvals.length === 0) return { owner, snapshot: { ...listed, pending_approvals: [] } };
    const run = await this.#mirrors.open(id);
    return run && { owner, snapshot: snapshotOf(run.record, run.log) };
  }

  list(owner: string, query: RunListQuery): Promise<RunPage> {
    return listRuns(this.#connection, this.#keys, owner, query);
  }

  touch(id: string): Promise<void> {
    return this.#local.touch(id);
  }

  async forget(id: string): Promise<void> {
    // A run that just ended here may still be on its way to Redis, where it still reads as running and
    // the script would keep it: forget it once its whole log is stored. One still running here stays.
    const executed = this.#local.executed.get(id);
    if (executed && !executed.log.terminal) return;
    await executed?.writer.done;
    await this.#connection.script('rbForget', this.#keys.prefix, { id });
    this.#mirrors.forget(id);
  }

  async sweep(): Promise<{ orphans: string[] }> {
    const now = this.#now();
    const { retentionMs } = this.#o.limits;
    this.#mirrors.sweep();
    this.#local.sweep();
    await this.#connection.script('rbSweep', this.#keys.prefix, { finishedBy: now - retentionMs, most: 1000 });
    await this.#leases.endLostRuns();
    // A run watched here is no orphan, wherever it runs or waits: its touch tells every instance so,
    // however long the streams' keep-alive period (RUNBRIDGE_KEEPALIVE_SECONDS) is.
    await Promise.all(this.#mirrors.watched().map((id) => this.touch(id)));
    return { orphans: await this.#orphans(now) };
  }

  async ping(): Promise<void> {
    await this.#connection.ping();
    const problem = this.#o.sharedSecret?.problem;
    if (problem !== undefined) throw new StoreUnavailableError(problem);
  }

  async stats(): Promise<RunCounts> {
    const keys = this.#keys;
    const [running, queued, finished] = await this.#connection.run(() =>
      Promise.all([
        this.#connection.command.hlen(keys.fixed('running')),
        this.#connection.command.zcard(keys.fixed('queue')),
        this.#connection.command.zcard(keys.fixed('finished')),
      ]),
    );
    return { running, queued, finished };
  }

  localCounts(): RunCounts {
    return { running: this.#local.executed.size, queued: 0, finished: 0 };
  }

  async close(): Promise<void> {
    clearInterval(this.#poll);
    await this.streams.close();
    await this.#leases.release();
    await this.#connection.close();
  }

  #newLog(record: RunRecord): EventLog {
    const { maxEventsPerRun, maxRunBytes, streamFlushMs } = this.#o.limits;
    return newRunLog(record, { maxEvents: maxEventsPerRun, maxRunBytes, wakeMs: streamFlushMs, now: this.#now });
  }

  /** The refusal of the submit script (`code`, and what is held), in the words both stores use. */
  #refusal(code: string, held: number, requestBytes: number): Refusal {
    const { limits } = this.#o;
    switch (code) {
      case 'key_store_full':
        return keyStoreFull(held, limits.maxStoredBytesPerKey);
      case 'store_full':
        return storeFull(held, limits.maxStoredBytes);
      case 'key_queue_full':
        return keyQueueFull(held);
      case 'queue_bytes':
        return queueBytesFull(held, requestBytes, limits.maxQueuedBytes);
      default:
        return queueFull(held);
    }
  }

  #claimed([id, recordJson, sealed]: string[]): ClaimedRun {
    const record = JSON.parse(recordJson!) as RunRecord;
    let secrets: Record<string, unknown> | undefined;
    try {
      secrets = sealed ? this.#o.secrets.unseal(id!, sealed) : undefined;
    } catch (error) {
      // Sealed under another secret: the instances do not share RUNBRIDGE_SECRET.
      this.#log.error(
        { ...runLogFields(record), err: error },
        `the secrets of run ${id} could not be opened (is RUNBRIDGE_SECRET the same on every instance?)`,
      );
    }
    return { record, secrets, log: this.#newLog(record) };
  }

  /**
   * Writes back the runs executing here whose record is gone from Redis (it restarted without its data,
   * or evicted them): a run that waits on a person writes nothing, so without this check it would go on
   * as a run no other instance knows. Its writer puts the record and the whole log back, and goes on.
   */
  async #writeBackRunsWithoutRecord(): Promise<void> {
    const ids = [...this.#local.executed.keys()];
    if (ids.length === 0) return;
    const pipeline = this.#connection.command.pipeline();
    for (const id of ids) pipeline.exists(this.#keys.run(id));
    const replies = (await this.#connection.run(() => pipeline.exec())) ?? [];
    for (const [position, id] of ids.entries()) {
      const [error, exists] = replies[position] ?? [];
      if (!error && exists === 0) this.#local.executed.get(id)?.writer.writeBack();
    }
  }

  /**
   * Runs nobody watched or asked about within the orphan TTL: queued ones, and those running here but
   * for those waiting on a person (only their own timeout ends that wait).
   */
  async #orphans(now: number): Promise<string[]> {
    const ttl = this.#o.limits.orphanTtlMs;
    const orphans: string[] = [];
    // A rollout batch's pair (not listed among its owner's runs) is kept by its batch, never orphaned.
    const candidates = [...this.#local.executed.values()].filter(
      ({ record, log, subscribers, touchedAt }) =>
        record.rollout === undefined &&
        !log.terminal &&
        !isWaitingStatus(log.summary.status) &&
        subscribers.count === 0 &&
        now - touchedAt >= ttl,
    );
    const queued = await this.#connection.run(() => this.#connection.command.zrange(this.#keys.fixed('queue'), 0, -1));
    const ids = [...candidates.map((active) => active.record.id), ...queued];
    if (ids.length === 0) return orphans;
    const pipeline = this.#connection.command.pipeline();
    for (const id of ids) pipeline.hmget(this.#keys.run(id), 'touched_at', 'listed');
    const replies = (await this.#connection.run(() => pipeline.exec())) ?? [];
    for (const [position, id] of ids.entries()) {
      const [touchedAt, listed] = (replies[position]?.[1] ?? []) as Array<string | null>;
      if (listed === '0') continue;
      const touched = Number(touchedAt ?? 0);
      const local = this.#local.executed.get(id);
      // Another instance's stream or request touched it: it is watched.
      if (local) local.touchedAt = Math.max(local.touchedAt, touched);
      if (now - Math.max(touched, local?.touchedAt ?? 0) >= ttl) orphans.push(id);
    }
    return orphans;
  }
}
