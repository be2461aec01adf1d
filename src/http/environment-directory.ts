import type { z } from 'zod';
import { OrsError } from '../errors.js';
import type { OrsClient } from '../ors/client/ors-client.js';
import type { EnvironmentListSchema } from './openapi/api-schemas.js';

/** The answer of `GET /v1/environments`. */
export type EnvironmentList = z.infer<typeof EnvironmentListSchema>;
/** One environment of {@link EnvironmentList}: its name and its splits with their task counts. */
export type EnvironmentEntry = EnvironmentList['data'][number];

/** The ORS calls the directory makes; an `OrsClient` has them. */
export type EnvironmentSource = Pick<OrsClient, 'listEnvironments' | 'splits' | 'numTasks'>;

/** Settings of {@link EnvironmentDirectory}; every duration in milliseconds. */
export interface EnvironmentDirectoryOptions {
  /** How long a listing is reused; default 30 000. An ORS server's catalog rarely changes. */
  ttlMs?: number;
  /** Bound of one whole listing, retries included; default 10 000. */
  timeoutMs?: number;
  /** The clock, in epoch milliseconds; default `Date.now`. */
  now?: () => number;
}

/**
 * What a caller may play: the ORS server's environments, each with its splits and how many tasks
 * each split holds — what a client needs to offer a choice of `env` and `task` (docs/api.md). One
 * listing costs `1 + environments × (1 + splits)` ORS requests, so it is shared by the callers that
 * ask meanwhile and reused for `ttlMs`; a listing that failed is not kept, and the next caller asks again.
 */
export class EnvironmentDirectory {
  readonly #source: EnvironmentSource;
  readonly #ttlMs: number;
  readonly #timeoutMs: number;
  readonly #now: () => number;
  #cached: { value: Promise<EnvironmentEntry[]>; expires: number } | undefined;

  constructor(source: EnvironmentSource, options: EnvironmentDirectoryOptions = {}) {
    this.#source = source;
    this.#ttlMs = options.ttlMs ?? 30_000;
    this.#timeoutMs = options.timeoutMs ?? 10_000;
    this.#now = options.now ?? Date.now;
  }

  /** Every environment, in the ORS server's order, with its splits and task counts; an `OrsError` when the server fails. */
  async list(): Promise<EnvironmentEntry[]> {
    const hit = this.#cached;
    if (hit && hit.expires > this.#now()) return hit.value;
    const value = this.#load();
    const entry = { value, expires: this.#now() + this.#ttlMs };
    this.#cached = entry;
    try {
      return await value;
    } catch (error) {
      if (this.#cached === entry) this.#cached = undefined;
      throw error;
    }
  }

  async #load(): Promise<EnvironmentEntry[]> {
    const signal = AbortSignal.timeout(this.#timeoutMs);
    try {
      const names = await this.#source.listEnvironments(signal);
      return await Promise.all(
        names.map(async (id) => {
          const splits = await this.#source.splits(id, signal);
          const counted = await Promise.all(
            splits.map(async (split) => ({
              name: split.name,
              type: split.type,
              tasks: await this.#source.numTasks(id, split.name, signal),
            })),
          );
          return { id, splits: counted };
        }),
      );
    } catch (error) {
      if (!signal.aborted) throw error;
      throw new OrsError(
        `The ORS server did not list its environments within ${this.#timeoutMs / 1000} s; ` +
          'check that it is running and reachable, then retry.',
        { code: 'ors_unavailable', cause: error },
      );
    }
  }
}
