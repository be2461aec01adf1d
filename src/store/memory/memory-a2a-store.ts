import type { A2aStore, PushConfigWrite, StoredPushConfig } from '../../a2a/a2a-store.js';

interface TaskConfigs {
  /** By id, in the order they were first stored (a `Map` keeps it, replacing in place). */
  configs: Map<string, StoredPushConfig>;
  expiresAt: number;
}

/** Push notification configs in this process (they die with it, as the runs in memory do). */
export class MemoryA2aStore implements A2aStore {
  readonly #tasks = new Map<string, TaskConfigs>();
  readonly #now: () => number;

  constructor(now: () => number = Date.now) {
    this.#now = now;
  }

  async putPushConfig(config: StoredPushConfig, max: number, ttlMs: number): Promise<PushConfigWrite> {
    const task = this.#live(config.taskId) ?? { configs: new Map(), expiresAt: 0 };
    if (!task.configs.has(config.id) && task.configs.size >= max) return 'full';
    task.configs.set(config.id, { ...config });
    task.expiresAt = this.#now() + ttlMs;
    this.#tasks.set(config.taskId, task);
    return 'stored';
  }

  async pushConfigs(taskId: string): Promise<StoredPushConfig[]> {
    return [...(this.#live(taskId)?.configs.values() ?? [])].map((config) => ({ ...config }));
  }

  async deletePushConfig(taskId: string, id: string): Promise<boolean> {
    return this.#live(taskId)?.configs.delete(id) ?? false;
  }

  #live(taskId: string): TaskConfigs | undefined {
    const task = this.#tasks.get(taskId);
    if (task !== undefined && task.expiresAt <= this.#now()) this.#tasks.delete(taskId);
    return task !== undefined && task.expiresAt > this.#now() ? task : undefined;
  }
}
