import type { RunSnapshot } from '../../protocol/run-snapshot.js';
import type { Run } from '../../runs/run.js';
import { invalidListCursor, type RunListQuery, type RunPage } from '../run-store.js';

/** The runs of one process by id, in creation order, and the list pages of `GET /v1/runs`. */
export class RunDirectory {
  readonly #runs = new Map<string, Run>();

  add(run: Run): void {
    this.#runs.set(run.id, run);
  }

  find(id: string): Run | undefined {
    return this.#runs.get(id);
  }

  remove(id: string): void {
    this.#runs.delete(id);
  }

  /** Every run, oldest first. */
  values(): IterableIterator<Run> {
    return this.#runs.values();
  }

  /** `owner`'s runs, newest first, filtered by status, one page at a time (see `RunStore.list`). */
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
