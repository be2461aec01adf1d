import type { EventDetail } from '../../protocol/event-detail.js';
import type { RunEvent } from '../../protocol/run-events.js';
import type { EventLog, EventLogOptions, StoredEntry } from '../../runs/event-log.js';
import { newRunLog, type RunRecord } from '../../runs/run-record.js';
import type { OpenedRun } from '../../runs/run-store.js';
import { SubscriberCount } from '../subscriber-count.js';
import type { RedisConnection } from './redis-connection.js';
import type { RedisKeys } from './redis-keys.js';
import type { StreamEntry, StreamFollower } from './stream-follower.js';

/** Entries one range read takes. */
const PAGE = 1000;
/** A mirror nobody reads for this long is dropped. */
const IDLE_MS = 30_000;

interface Mirror extends OpenedRun {
  lastUsed: number;
  /** Subscribers of the run on this instance. */
  subscribers: SubscriberCount;
  unfollow: (() => void) | undefined;
}

/** An entry of a run's Stream as the log holds it. */
export function loggedEntry([, fields]: StreamEntry): StoredEntry {
  let json = '';
  let detail: EventDetail | undefined;
  for (let i = 0; i < fields.length; i += 2) {
    if (fields[i] === 'e') json = fields[i + 1]!;
    else if (fields[i] === 'd') detail = JSON.parse(fields[i + 1]!) as EventDetail;
  }
  // Written by this store from a validated event: parsed, not validated again.
  return { event: JSON.parse(json) as RunEvent, json, detail };
}

/** Adds to `log` the entries it does not hold yet (a range read and a tail may overlap). */
export function appendEntries(log: EventLog, entries: readonly StreamEntry[]): void {
  for (const raw of entries) {
    const entry = loggedEntry(raw);
    if (entry.event.seq === log.length) log.appendStored(entry);
  }
}

/**
 * Local copies of the logs of runs this instance serves but does not execute: a run's stream format
 * reads earlier events of its log (`StreamContext.log`), so it needs the log here. A mirror is filled
 * by range reads, then tails the run's Stream until its terminal event; it is dropped once nobody
 * has read it for a while, and all are interrupted (their readers end and resume) when Redis fails.
 */
export class RunMirrors {
  readonly #connection: RedisConnection;
  readonly #keys: RedisKeys;
  readonly #follower: StreamFollower;
  readonly #now: () => number;
  readonly #wakeMs: number;
  readonly #mirrors = new Map<string, Mirror>();
  readonly #opening = new Map<string, Promise<OpenedRun | undefined>>();

  constructor(options: {
    connection: RedisConnection;
    keys: RedisKeys;
    follower: StreamFollower;
    now: () => number;
    /** The mirrored logs' {@link EventLogOptions.wakeMs}: their subscribers are this instance's. */
    wakeMs: number;
  }) {
    this.#connection = options.connection;
    this.#keys = options.keys;
    this.#follower = options.follower;
    this.#now = options.now;
    this.#wakeMs = options.wakeMs;
  }

  /** Mirrored runs' subscribers on this instance. */
  get subscribers(): number {
    let count = 0;
    for (const mirror of this.#mirrors.values()) count += mirror.subscribers.count;
    return count;
  }

  /** The ids of the mirrored runs that have subscribers on this instance. */
  watched(): string[] {
    return [...this.#mirrors].flatMap(([id, mirror]) => (mirror.subscribers.count > 0 ? [id] : []));
  }

  /** The mirror of run `id`, caught up with its Stream; undefined when the run is unknown. */
  async open(id: string): Promise<OpenedRun | undefined> {
    const known = this.#mirrors.get(id);
    if (known) {
      known.lastUsed = this.#now();
      if (!known.log.terminal) await this.#catchUp(id, known.log);
      return known;
    }
    let opening = this.#opening.get(id);
    if (!opening) {
      opening = this.#load(id).finally(() => this.#opening.delete(id));
      this.#opening.set(id, opening);
    }
    return opening;
  }

  /** Keeps a whole log this instance wrote (its run just ended here) as a mirror. */
  adopt(record: RunRecord, log: EventLog, subscribers: SubscriberCount): void {
    if (log.terminal) {
      this.#mirrors.set(record.id, { record, log, lastUsed: this.#now(), subscribers, unfollow: undefined });
    }
  }

  /** Counts a subscriber of mirrored run `id` in; the returned function counts it out. Undefined when `id` has no mirror. */
  watch(id: string): (() => void) | undefined {
    const mirror = this.#mirrors.get(id);
    if (!mirror) return undefined;
    const release = mirror.subscribers.add();
    return () => {
      release();
      mirror.lastUsed = this.#now();
    };
  }

  forget(id: string): void {
    this.#drop(id);
  }

  /** Drops the mirrors nobody has read for a while. */
  sweep(): void {
    const now = this.#now();
    for (const [id, { subscribers, lastUsed }] of this.#mirrors) {
      if (subscribers.count === 0 && now - lastUsed >= IDLE_MS) this.#drop(id);
    }
  }

  /** Redis failed: every mirror ends its readers (they resume from their cursors) and is dropped. */
  interruptAll(): void {
    for (const id of [...this.#mirrors.keys()]) {
      const mirror = this.#mirrors.get(id)!;
      this.#drop(id);
      if (!mirror.log.terminal) mirror.log.interrupt();
    }
  }

  async #load(id: string): Promise<OpenedRun | undefined> {
    const recordJson = await this.#connection.run(() => this.#connection.command.hget(this.#keys.run(id), 'record'));
    if (recordJson === null) return undefined;
    const record = JSON.parse(recordJson) as RunRecord;
    const log = newRunLog(record, { maxEvents: Number.POSITIVE_INFINITY, wakeMs: this.#wakeMs, now: this.#now });
    await this.#catchUp(id, log);
    const mirror: Mirror = {
      record,
      log,
      lastUsed: this.#now(),
      subscribers: new SubscriberCount(),
      unfollow: undefined,
    };
    if (!log.terminal) {
      mirror.unfollow = this.#follower.follow(this.#keys.log(id), `0-${log.length}`, (entries) => {
        appendEntries(log, entries);
        if (log.terminal) mirror.unfollow?.();
      });
    }
    this.#mirrors.set(id, mirror);
    return mirror;
  }

  /** Reads what run `id`'s Stream holds beyond the end of `log`. */
  async #catchUp(id: string, log: EventLog): Promise<void> {
    const key = this.#keys.log(id);
    for (;;) {
      const entries = (await this.#connection.run(() =>
        this.#connection.command.xrange(key, `(0-${log.length}`, '+', 'COUNT', PAGE),
      )) as StreamEntry[];
      appendEntries(log, entries);
      if (entries.length < PAGE) return;
    }
  }

  #drop(id: string): void {
    const mirror = this.#mirrors.get(id);
    if (!mirror) return;
    this.#mirrors.delete(id);
    mirror.unfollow?.();
  }
}
