import type { A2aStore, PushConfigWrite, StoredPushConfig } from '../../a2a/a2a-store.js';
import type { RedisConnection } from './redis-connection.js';
import type { RedisKeys } from './redis-keys.js';

/**
 * Push notification configs in the shared Redis (`rbPutPushConfig` holds the cap per task with any
 * number of instances): a config set through one instance is pushed to by whichever executes the task.
 */
export class RedisA2aStore implements A2aStore {
  readonly #connection: RedisConnection;
  readonly #keys: RedisKeys;

  constructor(connection: RedisConnection, keys: RedisKeys) {
    this.#connection = connection;
    this.#keys = keys;
  }

  async putPushConfig(config: StoredPushConfig, max: number, ttlMs: number): Promise<PushConfigWrite> {
    const stored = await this.#connection.script('rbPutPushConfig', this.#keys.prefix, {
      taskId: config.taskId,
      id: config.id,
      record: JSON.stringify(config),
      max,
      ttlMs: Math.max(1, Math.round(ttlMs)),
    });
    return Number(stored) === 1 ? 'stored' : 'full';
  }

  async pushConfigs(taskId: string): Promise<StoredPushConfig[]> {
    const keys = this.#keys;
    const [order, records] = await this.#connection.run(async () => {
      const answers = await this.#connection.command
        .multi()
        .lrange(keys.a2aPushOrder(taskId), 0, -1)
        .hgetall(keys.a2aPush(taskId))
        .exec();
      return [answers?.[0]?.[1] as string[], answers?.[1]?.[1] as Record<string, string>] as const;
    });
    return order.flatMap((id) => {
      const record = records[id];
      return record === undefined ? [] : [JSON.parse(record) as StoredPushConfig];
    });
  }

  async deletePushConfig(taskId: string, id: string): Promise<boolean> {
    const keys = this.#keys;
    const answers = await this.#connection.run(() =>
      this.#connection.command.multi().hdel(keys.a2aPush(taskId), id).lrem(keys.a2aPushOrder(taskId), 0, id).exec(),
    );
    return Number(answers?.[0]?.[1]) > 0;
  }
}
