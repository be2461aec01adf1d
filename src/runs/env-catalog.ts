import { BadRequestError, NotFoundError, OrsError } from '../errors.js';
import type { OrsClient } from '../ors/client/ors-client.js';
import type { TaskRef } from '../protocol/run-events.js';

const TTL_MS = 30_000;

/**
 * Answers "does this environment exist, and is this task in range?" before a run is accepted, so a
 * bad `env` or `task` is a 4xx at `POST /v1/runs` rather than a failed run. ORS answers are cached
 * briefly: the catalog of an ORS server rarely changes, and `POST` must stay fast.
 */
export class EnvCatalog {
  readonly #cache = new Map<string, { value: Promise<unknown>; expires: number }>();

  constructor(
    private readonly ors: OrsClient,
    private readonly now: () => number = Date.now,
  ) {}

  /** The task to play: `task` checked against the environment, or index 0 of its first split. */
  async resolve(env: string, task: TaskRef | undefined): Promise<TaskRef> {
    const environments = await this.#cached('envs', () => this.ors.listEnvironments());
    if (!environments.includes(env)) {
      throw new NotFoundError(`Unknown environment "${env}". Available: ${environments.join(', ') || '(none)'}.`, 'unknown_env');
    }
    if (task && 'spec' in task) return task;
    const splits = await this.#cached(`splits\0${env}`, () => this.ors.splits(env));
    const split = task?.split ?? splits[0]?.name;
    if (split === undefined) throw new BadRequestError(`Environment "${env}" has no splits; pass task.spec instead.`, { code: 'invalid_task' });
    if (!splits.some((entry) => entry.name === split)) {
      throw new BadRequestError(`Environment "${env}" has no split "${split}". Splits: ${splits.map((entry) => entry.name).join(', ')}.`, {
        code: 'invalid_task',
      });
    }
    const index = task?.index ?? 0;
    const count = await this.#cached(`count\0${env}\0${split}`, () => this.ors.numTasks(env, split));
    if (index >= count) {
      throw new BadRequestError(`Task index ${index} is out of range: split "${split}" of "${env}" has ${count} tasks (0–${count - 1}).`, {
        code: 'invalid_task',
      });
    }
    return { split, index };
  }

  async #cached<T>(key: string, load: () => Promise<T>): Promise<T> {
    const hit = this.#cache.get(key);
    if (hit && hit.expires > this.now()) return hit.value as Promise<T>;
    const value = load();
    this.#cache.set(key, { value, expires: this.now() + TTL_MS });
    try {
      return await value;
    } catch (error) {
      // A failed lookup is not remembered: the next request asks again.
      this.#cache.delete(key);
      if (error instanceof OrsError && error.code === 'unknown_env') {
        throw new NotFoundError(`Unknown environment: ${error.message}`, 'unknown_env');
      }
      throw error;
    }
  }
}
