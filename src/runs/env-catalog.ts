import { z } from 'zod';
import { BadRequestError, NotFoundError, OrsError } from '../errors.js';
import type { OrsClient } from '../ors/client/ors-client.js';
import type { TaskRef } from '../protocol/run-events.js';
import type { TaskRequest } from '../protocol/run-request.js';

const TTL_MS = 30_000;
/**
 * How long one lookup may take, retries included. A request waits on it, and the ORS client's own
 * bounds (30 s per attempt, several retries) would hold a `POST /v1/runs` for minutes.
 */
const LOOKUP_TIMEOUT_MS = 10_000;

/** A spec check built from an environment's task schema, or undefined when there is none to check against. */
type SpecCheck = z.ZodType | undefined;

/**
 * Answers "does this environment exist, and is this task in range?" before a run is accepted, so a
 * bad `env` or `task` is a 4xx at `POST /v1/runs` rather than a failed run. A `task.spec` is checked
 * against the environment's task schema where the ORS server publishes one (`GET /{env}/task_schema`,
 * docs/ors.md); on a server that does not, `/create` is the first to judge it. Environment names
 * match without regard to case, as ORS servers match them. ORS answers are cached briefly: the
 * catalog of an ORS server rarely changes, and `POST` must stay fast.
 */
export class EnvCatalog {
  readonly #cache = new Map<string, { value: Promise<unknown>; expires: number }>();

  constructor(
    private readonly ors: OrsClient,
    private readonly now: () => number = Date.now,
    private readonly lookupTimeoutMs = LOOKUP_TIMEOUT_MS,
  ) {}

  /**
   * The task to play: `task` checked against the environment — a spec against its schema, a split
   * (default: the first) and index (default 0) against its splits — or index 0 of its first split.
   */
  async resolve(env: string, task: TaskRequest | undefined): Promise<TaskRef> {
    await this.assertKnown(env);
    if (task?.spec !== undefined) {
      await this.#checkSpec(env, task.spec);
      return { spec: task.spec };
    }
    const splits = await this.#cached(`splits\0${env}`, (signal) => this.ors.splits(env, signal));
    const split = task?.split ?? splits[0]?.name;
    if (split === undefined)
      throw new BadRequestError(`Environment "${env}" has no splits; pass task.spec instead.`, {
        code: 'invalid_task',
      });
    if (!splits.some((entry) => entry.name === split)) {
      throw new BadRequestError(
        `Environment "${env}" has no split "${split}". Splits: ${splits.map((entry) => entry.name).join(', ')}.`,
        {
          code: 'invalid_task',
        },
      );
    }
    const index = task?.index ?? 0;
    const count = await this.#cached(`count\0${env}\0${split}`, (signal) => this.ors.numTasks(env, split, signal));
    if (index >= count) {
      throw new BadRequestError(
        `Task index ${index} is out of range: split "${split}" of "${env}" has ${count} tasks (0–${count - 1}).`,
        {
          code: 'invalid_task',
        },
      );
    }
    return { split, index };
  }

  /** Resolves when the ORS server lists `env` (any case); 404 `unknown_env` naming the ones it has otherwise. */
  async assertKnown(env: string): Promise<void> {
    const environments = await this.#cached('envs', (signal) => this.ors.listEnvironments(signal));
    const wanted = env.toLowerCase();
    if (!environments.some((name) => name.toLowerCase() === wanted)) {
      throw new NotFoundError(
        `Unknown environment "${env}". Available: ${environments.join(', ') || '(none)'}.`,
        'unknown_env',
      );
    }
  }

  async #checkSpec(env: string, spec: Record<string, unknown>): Promise<void> {
    const check = await this.#cached(`spec\0${env.toLowerCase()}`, async (signal): Promise<SpecCheck> => {
      const schema = await this.ors.taskSchema(env, signal);
      if (schema === undefined) return undefined;
      try {
        return z.fromJSONSchema(schema);
      } catch {
        // A schema using keywords zod cannot read: nothing to check against here; `/create` judges.
        return undefined;
      }
    });
    const parsed = check?.safeParse(spec);
    if (parsed === undefined || parsed.success) return;
    const problems = parsed.error.issues
      .slice(0, 10)
      .map((issue) => `${['task', 'spec', ...issue.path.map(String)].join('.')}: ${issue.message}`);
    throw new BadRequestError(
      `task.spec does not fit environment "${env}": ${problems.join('; ')}. ` +
        `GET /${env}/task_schema on the ORS server gives the schema a spec must follow (docs/ors.md).`,
      { code: 'invalid_task', details: problems },
    );
  }

  /**
   * The cached answer of `key`, loading it when missing or stale. The load is shared by every request
   * that asks meanwhile, so it is bounded by its own time limit, not by one request's signal.
   */
  async #cached<T>(key: string, load: (signal: AbortSignal) => Promise<T>): Promise<T> {
    const hit = this.#cache.get(key);
    if (hit && hit.expires > this.now()) return hit.value as Promise<T>;
    const signal = AbortSignal.timeout(this.lookupTimeoutMs);
    const value = load(signal).catch((error: unknown) => {
      if (!signal.aborted) throw error;
      throw new OrsError(
        `The ORS server did not answer within ${this.lookupTimeoutMs / 1000} s while the environment and task were checked; ` +
          'check that it is running and reachable, then retry.',
        { code: 'ors_unavailable', cause: error },
      );
    });
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
