import type { RunListItem } from '../../protocol/run-snapshot.js';
import type { EventLog } from '../../runs/event-log.js';
import type { RunRecord } from '../../runs/run-record.js';
import { invalidListCursor, type RunListQuery, type RunPage } from '../../runs/run-store.js';
import { listItemOf } from '../../runs/snapshot-of.js';
import type { SubscriberCount } from '../subscriber-count.js';

/** A run as the memory store keeps it: its record, its log, and who looked at it. */
export interface MemoryRun {
  readonly record: RunRecord;
  /** `recordBytes(record)`, counted once: what its record adds to the stored-bytes budget, taken back when it is forgotten. */
  readonly recordBytes: number;
  readonly log: EventLog;
  /** Epoch ms of the last touch (a request about it, a subscriber coming or going, a keep-alive). */
  touchedAt: number;
  /** Subscribers attached on this process. */
  readonly subscribers: SubscriberCount;
}

/** Records that someone looked at `run` at `now` (a touch never moves its time back). */
export function touchRun(run: MemoryRun, now: number): void {
  run.touchedAt = Math.max(run.touchedAt, now);
}

/** The runs of one process by id, in creation order, and the list pages of `GET /v1/runs`. */
export class RunDirectory {
  readonly #runs = new Map<string, MemoryRun>();

  add(run: MemoryRun): void {
    this.#runs.set(run.record.id, run);
  }

  find(id: string): MemoryRun | undefined {
    return this.#runs.get(id);
  }

  remove(id: string): void {
    this.#runs.delete(id);
  }

  /** Every run, oldest first. */
  values(): IterableIterator<MemoryRun> {
    return this.#runs.values();
  }

  /** `owner`'s runs, newest first, filtered by status, one page at a time (see `RunStore.list`). */
  list(owner: string, query: RunListQuery): RunPage {
    const runs = [...this.#runs.values()].reverse();
    let start = 0;
    if (query.after !== undefined) {
      const index = runs.findIndex(({ record }) => record.id === query.after && record.owner === owner);
      if (index < 0) throw invalidListCursor(query.after);
      start = index + 1;
    }
    const data: RunListItem[] = [];
    let next: string | null = null;
    for (let i = start; i < runs.length; i++) {
      const { record, log } = runs[i]!;
      if (record.owner !== owner || record.rollout || (query.status && log.summary.status !== query.status)) continue;
      if (data.length === query.limit) {
        next = data[data.length - 1]!.run_id;
        break;
      }
      data.push(listItemOf(record, log));
    }
    return { data, next };
  }
}
