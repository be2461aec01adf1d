import { randomBytes } from 'node:crypto';
import type { Logger } from '../../telemetry/logger.js';
import type { RedisConnection } from './redis-connection.js';
import type { RedisKeys } from './redis-keys.js';

/**
 * The secret every instance shares when `RUNBRIDGE_SECRET` is not set, kept in Redis: the first instance
 * to start writes it, the others read it. A Redis that restarts without its data loses it, so whenever
 * the connection comes back an instance writes its own back (`SET NX`): instances that were running all
 * hold the same one, and the first to return restores it. If another secret got there first (an instance
 * started while Redis was empty and made a new one), stream tokens and sealed secrets no longer work across
 * instances: the instance says so in its log and fails its health and readiness until it is restarted.
 */
export class SharedSecret {
  readonly value: Buffer;
  readonly #connection: RedisConnection;
  readonly #keys: RedisKeys;
  readonly #log: Logger;
  #problem: string | undefined;

  private constructor(value: Buffer, connection: RedisConnection, keys: RedisKeys, log: Logger) {
    this.value = value;
    this.#connection = connection;
    this.#keys = keys;
    this.#log = log;
    connection.onStateChange((up) => {
      if (up) void this.#restore().catch(() => undefined);
    });
  }

  /** The secret in Redis (written now, when there is none). */
  static async open(connection: RedisConnection, keys: RedisKeys, log: Logger): Promise<SharedSecret> {
    const candidate = randomBytes(32).toString('base64');
    const key = keys.fixed('secret');
    await connection.run(() => connection.command.set(key, candidate, 'NX'));
    const kept = await connection.run(() => connection.command.get(key));
    return new SharedSecret(Buffer.from(kept ?? candidate, 'base64'), connection, keys, log);
  }

  /** Why this instance's secret is no longer the shared one, or undefined while it is. */
  get problem(): string | undefined {
    return this.#problem;
  }

  async #restore(): Promise<void> {
    const mine = this.value.toString('base64');
    const key = this.#keys.fixed('secret');
    await this.#connection.run(() => this.#connection.command.set(key, mine, 'NX'));
    const kept = await this.#connection.run(() => this.#connection.command.get(key));
    if (kept === mine || this.#problem !== undefined) return;
    this.#problem =
      "The secret shared through Redis is no longer this instance's (Redis lost its data and another instance wrote a new one): " +
      'stream tokens and sealed secrets no longer work across instances. Restart this instance, or set RUNBRIDGE_SECRET on every instance.';
    this.#log.error(this.#problem);
  }
}
