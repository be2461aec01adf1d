import type { ControlMessage, ControlOutcome } from '../../runs/control-message.js';
import { MAX_WAITING_MESSAGES } from '../../runs/run-inbox.js';
import type { OpenedRun } from '../../runs/run-store.js';
import type { EndedRun, PublishedRun, RunStreams } from '../../runs/run-streams.js';
import type { Logger } from '../../telemetry/logger.js';
import { runLogFields } from '../../telemetry/run-log-fields.js';
import type { Listeners } from '../listeners.js';
import { SubscriberCount } from '../subscriber-count.js';
import { type EndStoredRunDeps, endStoredRun } from './end-stored-run.js';
import type { ExecutedRun, LocalRuns } from './local-runs.js';
import type { RedisConnection } from './redis-connection.js';
import type { RedisKeys } from './redis-keys.js';
import { RunLogWriter } from './run-log-writer.js';
import type { RunMirrors } from './run-mirrors.js';
import type { StreamEntry, StreamFollower } from './stream-follower.js';

export interface RedisRunStreamsOptions {
  connection: RedisConnection;
  keys: RedisKeys;
  /** This instance's id: the holder of the runs it executes, and the reader of its control Stream. */
  instance: string;
  /** How long a finished run's keys live in Redis. */
  expireMs: number;
  now: () => number;
  log: Logger;
  /** The store's tail of Redis Streams: run logs for the mirrors, and this instance's control Stream. */
  follower: StreamFollower;
  /** Copies of the logs of the runs this instance serves but does not execute. */
  mirrors: RunMirrors;
  /** The runs this instance executes, shared with the store's record side. */
  local: LocalRuns;
  /** Who hears of the runs this instance ends for an executor that no longer ran them (the store's leases tell them too). */
  ended: Listeners<[EndedRun]>;
}

/**
 * The live side of the shared store (docs/protocol.md §8): the runs this instance executes are written
 * through by {@link RunLogWriter}; runs it only serves are read through {@link RunMirrors}; control
 * messages for its runs arrive on its own control Stream and go to each run's inbox. Made by
 * `RedisRunStore`, whose connection it uses and which closes it.
 */
export class RedisRunStreams implements RunStreams {
  readonly #o: RedisRunStreamsOptions;

  constructor(options: RedisRunStreamsOptions) {
    this.#o = options;
    const { follower, keys, instance } = options;
    follower.follow(keys.control(instance), '0-0', (entries) => this.#onControl(entries), true);
  }

  get #endDeps(): EndStoredRunDeps {
    const { connection, keys, expireMs, now } = this.#o;
    return { connection, keys, expireMs, now };
  }

  publish({ record, log, control }: PublishedRun): Promise<boolean> {
    const { connection, keys, instance, expireMs, local, mirrors } = this.#o;
    const writer = new RunLogWriter(record, log, { connection, keys, instance, expireMs, log: this.#o.log });
    const executed: ExecutedRun = {
      record,
      log,
      writer,
      control,
      touchedAt: record.createdAt,
      subscribers: new SubscriberCount(),
    };
    local.executed.set(record.id, executed);
    return writer.done.then((outcome) => {
      local.executed.delete(record.id);
      // Only a log the store holds whole is a faithful copy; a refused one ended differently there.
      if (outcome === 'stored') mirrors.adopt(record, log, executed.subscribers);
      return outcome === 'stored';
    });
  }

  async join(id: string): Promise<OpenedRun | undefined> {
    return this.#o.local.executed.get(id) ?? this.#o.mirrors.open(id);
  }

  watch(id: string): () => void {
    const { local, mirrors } = this.#o;
    const touch = () => void local.touch(id).catch(() => undefined);
    const executed = local.executed.get(id);
    const release = executed ? executed.subscribers.add() : mirrors.watch(id);
    touch();
    return () => {
      release?.();
      touch();
    };
  }

  subscribers(): number {
    let subscribers = this.#o.mirrors.subscribers;
    for (const executed of this.#o.local.executed.values()) subscribers += executed.subscribers.count;
    return subscribers;
  }

  async send(id: string, message: ControlMessage): Promise<ControlOutcome> {
    const { connection, keys, instance } = this.#o;
    // Through Redis even for a run executing here: a person's message is counted there, so every
    // instance refuses the one past the bound alike, and none is accepted for a run whose record is gone.
    const outcome = String(
      await connection.script('rbControl', keys.prefix, {
        id,
        instance,
        payload: JSON.stringify(message),
        isMessage: message.type === 'message' ? 1 : 0,
        maxWaiting: MAX_WAITING_MESSAGES,
      }),
    );
    if (outcome === 'here') return this.#deliver(id, message);
    return outcome === 'full' || outcome === 'gone' ? outcome : 'sent';
  }

  onEnded(listener: (run: EndedRun) => void): () => void {
    return this.#o.ended.add(listener);
  }

  /** Stops writing and following: the writers of the runs executing here, the tail, the mirrors' readers. */
  async close(): Promise<void> {
    for (const { writer } of this.#o.local.executed.values()) writer.close();
    await this.#o.follower.stop();
    this.#o.mirrors.interruptAll();
  }

  #onControl(entries: StreamEntry[]): void {
    for (const [, fields] of entries) {
      const values = new Map<string, string>();
      for (let i = 0; i < fields.length; i += 2) values.set(fields[i]!, fields[i + 1]!);
      const id = values.get('run');
      const message = values.get('message');
      if (id && message) void this.#deliver(id, JSON.parse(message) as ControlMessage).catch(() => undefined);
    }
  }

  /**
   * Hands a control message for a run this instance holds to the run's inbox. A cancel of a run held here
   * that nothing executes (it was stranded) ends it in Redis at once, as cancelled, so the caller's
   * answer is how it ended rather than a wait for a run that will not move.
   */
  async #deliver(id: string, message: ControlMessage): Promise<ControlOutcome> {
    const executed = this.#o.local.executed.get(id);
    if (executed) return executed.control(message);
    if (message.type !== 'cancel') return 'gone';
    const ended = await endStoredRun(this.#endDeps, id, this.#o.instance, {
      event: 'run.cancelled',
      reason: message.reason,
    });
    if (ended === undefined) return 'gone';
    this.#o.log.warn(
      { ...runLogFields(ended.record), reason: message.reason },
      `run ${id} was held by this instance but no longer executed: the cancel ended it.`,
    );
    this.#o.ended.tell(ended);
    return 'sent';
  }
}
