import { BadRequestError, NotFoundError } from '../errors.js';
import type { RunSnapshot, RunStatus } from '../protocol/run-snapshot.js';
import type { Run } from './run.js';

export interface RunListQuery {
  status?: RunStatus;
  limit: number;
  /** A run id: list the runs created before it (the `next` of the previous page). */
  after?: string;
}

export interface RunPage {
  data: RunSnapshot[];
  /** The `after` of the next page, or null on the last one. */
  next: string | null;
}

/** The 404 for a run that is unknown, forgotten, or another key's (we do not say which). */
export function runNotFound(id: string): NotFoundError {
  return new NotFoundError(
    `No run "${id}" here: it never existed, was forgotten after its retention, or belongs to another key.`,
    'run_not_found',
  );
}

/** The 400 for a list cursor that names no run of the caller's. */
export function invalidListCursor(after: string): BadRequestError {
  return new BadRequestError(
    `The cursor ?after=${after} names no run of yours: it is unknown or was forgotten after its retention or a DELETE. Restart from the first page (no ?after=).`,
    { code: 'invalid_cursor' },
  );
}

/**
 * The runs of one process by id, in creation order: lookup scoped to the owner, and the list
 * pages of `GET /v1/runs`.
 */
export class RunDirectory {
  readonly #runs = new Map<string, Run>();

  get size(): number {
    return this.#runs.size;
  }

  add(run: Run): void {
    this.#runs.set(run.id, run);
  }

  /** The run `id`, whoever owns it. */
  find(id: string): Run | undefined {
    return this.#runs.get(id);
  }

  /** The run `id` if `owner` may see it, else 404. */
  get(id: string, owner: string): Run {
    const run = this.#runs.get(id);
    if (!run || run.owner !== owner) throw runNotFound(id);
    return run;
  }

  remove(id: string): void {
    this.#runs.delete(id);
  }

  /** Every run, oldest first. */
  values(): IterableIterator<Run> {
    return this.#runs.values();
  }

  /**
   * `owner`'s runs, newest first, filtered by status, one page at a time. A cursor naming no run of
   * `owner`'s is a 400: the run may have been forgotten meanwhile, and an empty page would tell the
   * client it has seen every run.
   */
  list(owner: string, query: RunListQuery): RunPage {
    const runs = [...this.#runs.values()].reverse();
    let start = 0;
    if (query.after !== undefined) {
      const index = runs.findIndex((run) => run.id === query.after && run.owner === owner);
      if (index < 0) throw invalidListCursor(query.after);
      start = index + 1;
    }
    const data: RunSnapshot[] = [];
    let next: string | null = null;
    for (let i = start; i < runs.length; i++) {
      const run = runs[i]!;
      if (run.owner !== owner || (query.status && run.status !== query.status)) continue;
      if (data.length === query.limit) {
        next = data[data.length - 1]!.run_id;
        break;
      }
      data.push(run.snapshot());
    }
    return { data, next };
  }
}
