import type { OpenedRun } from '../../runs/run-store.js';
import type { PublishedRun } from '../../runs/run-streams.js';
import type { SubscriberCount } from '../subscriber-count.js';
import type { RedisConnection } from './redis-connection.js';
import type { RedisKeys } from './redis-keys.js';
import type { RunLogWriter } from './run-log-writer.js';

/** Touches of one run are passed to Redis at most this often from one instance. */
const TOUCH_EVERY_MS = 1000;

/** A run this instance executes: its record, its log and writer, its inbox, its subscribers here and its last touch. */
export interface ExecutedRun extends OpenedRun {
  writer: RunLogWriter;
  control: PublishedRun['control'];
  touchedAt: number;
  subscribers: SubscriberCount;
}

/**
 * What an instance of the Redis store knows of runs without asking Redis, shared by its record side and
 * its live side: the runs it executes, and when it last passed a touch of any other run on to Redis.
 */
export class LocalRuns {
  /** The runs this instance executes, by id. */
  readonly executed = new Map<string, ExecutedRun>();
  readonly #connection: RedisConnection;
  readonly #keys: RedisKeys;
  readonly #now: () => number;
  readonly #touched = new Map<string, number>();

  constructor(options: { connection: RedisConnection; keys: RedisKeys; now: () => number }) {
    this.#connection = options.connection;
    this.#keys = options.keys;
    this.#now = options.now;
  }

  /**
   * Records that someone looked at run `id`: here for a run this instance executes, else in Redis — a
   * stream touches its run at every keep-alive, and Redis hears of it once a second at most.
   */
  async touch(id: string): Promise<void> {
    const now = this.#now();
    const executed = this.executed.get(id);
    if (executed) {
      executed.touchedAt = Math.max(executed.touchedAt, now);
      return;
    }
    if (now - (this.#touched.get(id) ?? 0) < TOUCH_EVERY_MS) return;
    this.#touched.set(id, now);
    await this.#connection.script('rbTouch', this.#keys.prefix, { id, at: now });
  }

  /** Forgets the touches old enough to be passed on again. */
  sweep(): void {
    const now = this.#now();
    for (const [id, at] of this.#touched) if (now - at > TOUCH_EVERY_MS) this.#touched.delete(id);
  }
}
