import { z } from 'zod';
import { BadRequestError, NotFoundError, OrsError } from '../errors.js';
import type { OrsClient } from '../ors/client/ors-client.js';
import type { EnvironmentListSchema } from '../protocol/api-answers.js';
import type { TaskRef } from '../protocol/run-events.js';
import type { TaskRequest } from '../protocol/run-request.js';

/** One environment of `GET /v1/environments`: its name, and its splits with their kinds and task counts. */
export type EnvironmentEntry = z.infer<typeof EnvironmentListSchema>['data'][number];

/** The ORS calls the catalog makes; an `OrsClient` has them. */
export type EnvironmentSource = Pick<OrsClient, 'listEnvironments' | 'splits' | 'numTasks' | 'taskSchema' | 'tools'>;

/** The environment a request that names none plays when none is configured and the ORS server lists it. */
const PREFERRED_DEFAULT = 'arith';

/** Settings of an {@link EnvCatalog}; every duration in milliseconds. */
export interface EnvCatalogOptions {
  /** `RUNBRIDGE_DEFAULT_ENV`; unset, {@link EnvCatalog.defaultEnv} chooses from what the server lists. */
  defaultEnv?: string;
  /** How long an ORS answer is reused; default 30 000. An ORS server's catalog rarely changes. */
  ttlMs?: number;
  /**
   * How long one lookup may take, retries included; default 10 000. A request waits on it, and the ORS
   * client's own bounds (30 s per attempt, several retries) would hold a `POST /v1/runs` for minutes.
   */
  timeoutMs?: number;
  /** The clock, in epoch milliseconds; default `Date.now`. */
  now?: () => number;
}

/** Whether the ORS server answers, as `/health` and `/ready` report it. */
export type OrsHealth = { status: 'ok' } | { status: 'unreachable'; error: string };

/** How long a health probe waits for the ORS server, and how long its answer is reused. */
const PROBE_TIMEOUT_MS = 1000;
const PROBE_REUSE_MS = 2000;

/** A spec check built from an environment's task schema, or undefined when there is none to check against. */
type SpecCheck = z.ZodType | undefined;

/**
 * What the ORS server offers, as the bridge asks it: "does this environment exist, and is this task in
 * range?" before a run is accepted (so a bad `env` or `task` is a 4xx at `POST /v1/runs` rather than a
 * failed run), and the whole listing of `GET /v1/environments`. A `task.spec` is checked against the
 * environment's task schema where the ORS server publishes one (`GET /{env}/task_schema`, docs/ors.md);
 * on a server that does not, `/create` is the first to judge it. Environment names match without regard
 * to case, as ORS servers match them. Every ORS answer is cached for `ttlMs`, shared by the callers that
 * ask meanwhile, and bounded by its own time limit; a failed one is not kept, so the next caller asks again.
 */
export class EnvCatalog {
  readonly #source: EnvironmentSource;
  readonly #defaultEnv: string | undefined;
  readonly #ttlMs: number;
  readonly #timeoutMs: number;
  readonly #now: () => number;
  readonly #cache = new Map<string, { value: Promise<unknown>; expires: number }>();
  #probe: { value: Promise<OrsHealth>; expires: number } | undefined;

  constructor(source: EnvironmentSource, options: EnvCatalogOptions = {}) {
    this.#source = source;
    this.#defaultEnv = options.defaultEnv;
    this.#ttlMs = options.ttlMs ?? 30_000;
    this.#timeoutMs = options.timeoutMs ?? 10_000;
    this.#now = options.now ?? Date.now;
  }

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
    const splits = await this.#splits(env);
    const split = task?.split ?? splits[0]?.name;
    if (split === undefined)
      throw new BadRequestError(`Environment "${env}" has no splits; pass task.spec instead.`, {
        code: 'invalid_task',
      });
    if (!splits.some((entry) => entry.name === split)) {
      throw new BadRequestError(
        `Environment "${env}" has no split "${split}". Splits: ${splits.map((entry) => entry.name).join(', ')}.`,
        { code: 'invalid_task' },
      );
    }
    const index = task?.index ?? 0;
    const count = await this.#count(env, split);
    if (index >= count) {
      throw new BadRequestError(
        `Task index ${index} is out of range: split "${split}" of "${env}" has ${count} tasks (0–${count - 1}).`,
        { code: 'invalid_task' },
      );
    }
    return { split, index };
  }

  /** Resolves when the ORS server lists `env` (any case); 404 `unknown_env` naming the ones it has otherwise. */
  async assertKnown(env: string): Promise<void> {
    const environments = await this.#environments();
    const wanted = env.toLowerCase();
    if (!environments.some((name) => name.toLowerCase() === wanted)) {
      throw new NotFoundError(
        `Unknown environment "${env}". Available: ${environments.join(', ') || '(none)'}.`,
        'unknown_env',
      );
    }
  }

  /**
   * Every environment, in the ORS server's order, with its splits and how many tasks each holds: what a
   * client needs to offer a choice of `env` and `task` (docs/api.md). An `OrsError` when the server fails.
   */
  async list(): Promise<EnvironmentEntry[]> {
    const names = await this.#environments();
    return Promise.all(
      names.map(async (id) => {
        const splits = await this.#splits(id);
        const counted = await Promise.all(
          splits.map(async ({ name, type }) => ({ name, type, tasks: await this.#count(id, name) })),
        );
        return { id, splits: counted };
      }),
    );
  }

  /**
   * The tools of `env`, names and descriptions as the ORS server lists them (cached as the rest): what
   * the A2A agent card says of its skill. An `OrsError` when the server fails.
   */
  async tools(env: string): Promise<Array<{ name: string; description: string }>> {
    const tools = await this.#cached(`tools\0${env}`, (signal) => this.#source.tools(env, signal));
    return tools.map(({ name, description }) => ({ name, description }));
  }

  /**
   * The environment of a request that names none: the configured one, else `arith` when the server lists
   * it, else the server's first environment — so a remote ORS server without `arith` needs no setting.
   * An `OrsError` while the server does not answer (and none is configured).
   */
  async defaultEnv(): Promise<string> {
    if (this.#defaultEnv !== undefined) return this.#defaultEnv;
    const environments = await this.#environments();
    const preferred = environments.find((name) => name.toLowerCase() === PREFERRED_DEFAULT);
    if (preferred !== undefined) return preferred;
    const first = environments[0];
    if (first === undefined) throw new NotFoundError('The ORS server lists no environment to play.', 'unknown_env');
    return first;
  }

  /**
   * Whether the ORS server answers now: it is asked for its environments (about a second at most, no
   * retries), and the answer is reused for two seconds, so a crowd of health checks is one request.
   */
  health(): Promise<OrsHealth> {
    const probe = this.#probe;
    if (probe && probe.expires > this.#now()) return probe.value;
    const value = this.#source.listEnvironments(AbortSignal.timeout(PROBE_TIMEOUT_MS)).then(
      (): OrsHealth => ({ status: 'ok' }),
      (error: unknown): OrsHealth => ({
        status: 'unreachable',
        error:
          error instanceof Error && error.name !== 'TimeoutError'
            ? error.message
            : `no answer within ${PROBE_TIMEOUT_MS} ms`,
      }),
    );
    this.#probe = { value, expires: this.#now() + PROBE_REUSE_MS };
    return value;
  }

  #environments(): Promise<string[]> {
    return this.#cached('envs', (signal) => this.#source.listEnvironments(signal));
  }

  #splits(env: string) {
    return this.#cached(`splits\0${env}`, (signal) => this.#source.splits(env, signal));
  }

  #count(env: string, split: string): Promise<number> {
    return this.#cached(`count\0${env}\0${split}`, (signal) => this.#source.numTasks(env, split, signal));
  }

  async #checkSpec(env: string, spec: Record<string, unknown>): Promise<void> {
    const check = await this.#cached(`spec\0${env.toLowerCase()}`, async (signal): Promise<SpecCheck> => {
      const schema = await this.#source.taskSchema(env, signal);
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
   * The cached answer of `key`, loading it when missing or stale. The load is shared by every caller
   * that asks meanwhile, so it is bounded by its own time limit, not by one request's signal.
   */
  async #cached<T>(key: string, load: (signal: AbortSignal) => Promise<T>): Promise<T> {
    const hit = this.#cache.get(key);
    if (hit && hit.expires > this.#now()) return hit.value as Promise<T>;
    const signal = AbortSignal.timeout(this.#timeoutMs);
    const value = load(signal).catch((error: unknown) => {
      if (!signal.aborted) throw error;
      throw new OrsError(
        `The ORS server did not answer within ${this.#timeoutMs / 1000} s; check that it is running and reachable, then retry.`,
        { code: 'ors_unavailable', cause: error },
      );
    });
    const entry = { value, expires: this.#now() + this.#ttlMs };
    this.#cache.set(key, entry);
    try {
      return await value;
    } catch (error) {
      // A failed lookup is not remembered: the next caller asks again.
      if (this.#cache.get(key) === entry) this.#cache.delete(key);
      if (error instanceof OrsError && error.code === 'unknown_env') {
        throw new NotFoundError(`Unknown environment: ${error.message}`, 'unknown_env');
      }
      throw error;
    }
  }
}
