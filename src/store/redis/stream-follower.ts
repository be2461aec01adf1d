import { READ_BLOCK_MS, type RedisConnection } from './redis-connection.js';

/** One entry of a Redis Stream as XREAD and XRANGE return it: its id and its field/value list. */
export type StreamEntry = [id: string, fields: string[]];

/** Most entries one read takes from one stream. */
const COUNT = 1000;

interface Followed {
  lastId: string;
  onEntries: (entries: StreamEntry[]) => void;
}

/**
 * Tails any number of Redis Streams on the store's one blocking connection: a single `XREAD BLOCK`
 * over all of them, sent again as soon as it returns. Following or dropping a stream interrupts the
 * read in flight (`CLIENT UNBLOCK`), so a new follower waits for nothing. When the connection fails,
 * `onBroken` is told once per outage and the loop waits for Redis to come back; the streams it
 * follows are dropped (their readers start again from their own cursors), the permanent ones kept.
 */
export class StreamFollower {
  readonly #connection: RedisConnection;
  readonly #onBroken: () => void;
  readonly #streams = new Map<string, Followed>();
  /** Streams followed for the store's whole life (the control stream), kept across outages. */
  readonly #permanent = new Set<string>();
  #clientId: number | undefined;
  #blocked = false;
  /** Bumped whenever the set of streams changes; the read in flight reads set `#reading`. */
  #generation = 0;
  #reading = 0;
  #stopped = false;
  readonly #loop: Promise<void>;

  constructor(connection: RedisConnection, onBroken: () => void) {
    this.#connection = connection;
    this.#onBroken = onBroken;
    connection.blocking.on('ready', () => {
      this.#clientId = undefined;
    });
    this.#loop = this.#run();
  }

  /** Follows `key` from after `lastId`, calling `onEntries` with each batch; returns the function that stops it. */
  follow(key: string, lastId: string, onEntries: (entries: StreamEntry[]) => void, permanent = false): () => void {
    const followed: Followed = { lastId, onEntries };
    this.#streams.set(key, followed);
    if (permanent) this.#permanent.add(key);
    this.#interrupt();
    return () => {
      if (this.#streams.get(key) !== followed) return;
      this.#streams.delete(key);
      this.#permanent.delete(key);
    };
  }

  /** Stops the loop and resolves once it has ended. */
  async stop(): Promise<void> {
    this.#stopped = true;
    this.#interrupt();
    this.#connection.blocking.disconnect(false);
    await this.#loop;
  }

  async #run(): Promise<void> {
    let broken = false;
    while (!this.#stopped) {
      if (this.#streams.size === 0 || this.#connection.blocking.status !== 'ready') {
        await new Promise((resolve) => setTimeout(resolve, 20));
        continue;
      }
      try {
        this.#clientId ??= Number(await this.#connection.blocking.client('ID'));
        const keys = [...this.#streams.keys()];
        const ids = keys.map((key) => this.#streams.get(key)!.lastId);
        this.#reading = this.#generation;
        this.#blocked = true;
        const reply = (await this.#connection.blocking.xread(
          'COUNT',
          COUNT,
          'BLOCK',
          READ_BLOCK_MS,
          'STREAMS',
          ...keys,
          ...ids,
        )) as Array<[string, StreamEntry[]]> | null;
        this.#blocked = false;
        broken = false;
        for (const [key, entries] of reply ?? []) {
          const followed = this.#streams.get(key);
          if (!followed || entries.length === 0) continue;
          followed.lastId = entries.at(-1)![0];
          followed.onEntries(entries);
        }
      } catch {
        this.#blocked = false;
        if (this.#stopped) return;
        if (!broken) {
          broken = true;
          for (const key of [...this.#streams.keys()]) if (!this.#permanent.has(key)) this.#streams.delete(key);
          this.#onBroken();
        }
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    }
  }

  /**
   * Ends the blocking read in flight, if any, so the next one reads the new set of streams. The
   * unblock travels on the other connection and may overtake the read it is meant to end, so it is
   * sent again until it lands or the read is over.
   */
  #interrupt(): void {
    const generation = ++this.#generation;
    void (async () => {
      for (let tries = 0; tries < 100; tries++) {
        if (!this.#blocked || this.#reading >= generation || this.#clientId === undefined) return;
        const unblocked = await this.#connection.command.client('UNBLOCK', this.#clientId).catch(() => 0);
        if (Number(unblocked) === 1) return;
        await new Promise((resolve) => setTimeout(resolve, 5));
      }
    })();
  }
}
