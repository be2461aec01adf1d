import type { ClaimedRun, NewRun, StoreLimits } from '../../runs/run-store.js';
import { keyQueueFull, queueBytesFull, queueFull, type Refusal } from '../refusals.js';

interface Waiting extends ClaimedRun {
  requestBytes: number;
}

/** What {@link RunQueue.admit} decided. */
export type QueueAdmission = { kind: 'started' } | { kind: 'queued' } | Refusal;

/**
 * The runs of one process waiting for a slot, first in first out, with the counts the quotas need:
 * runs running and waiting per key, and the bytes the waiting requests hold. A run whose key is at
 * its running quota waits even while slots are free, so one key cannot take every slot; one whose
 * key holds its share of the queue is refused, so one key cannot fill it (docs/protocol.md §6).
 */
export class RunQueue {
  readonly #limits: StoreLimits;
  readonly #waiting: Waiting[] = [];
  readonly #runningByKey = new Map<string, number>();
  readonly #queuedByKey = new Map<string, number>();
  #queuedBytes = 0;
  #running = 0;

  constructor(limits: StoreLimits) {
    this.#limits = limits;
  }

  get length(): number {
    return this.#waiting.length;
  }

  /** Runs claimed to run and not yet ended. */
  get running(): number {
    return this.#running;
  }

  /** Starts `entry`'s run at once when it may, queues it (to be played into `log`) when it may wait, refuses it otherwise. */
  admit(entry: NewRun, log: ClaimedRun['log']): QueueAdmission {
    const { record, secrets, requestBytes, startHere } = entry;
    const owner = record.owner;
    const limits = this.#limits;
    if (startHere && count(this.#runningByKey, owner) < limits.maxRunningPerKey) {
      this.#markRunning(owner);
      return { kind: 'started' };
    }
    if (this.#waiting.length >= limits.maxQueuedRuns) return queueFull(this.#waiting.length);
    if (count(this.#queuedByKey, owner) >= limits.maxQueuedPerKey) return keyQueueFull(count(this.#queuedByKey, owner));
    if (this.#queuedBytes + requestBytes > limits.maxQueuedBytes) {
      return queueBytesFull(this.#queuedBytes, requestBytes, limits.maxQueuedBytes);
    }
    this.#waiting.push({ record, secrets, log, requestBytes });
    add(this.#queuedByKey, owner, 1);
    this.#queuedBytes += requestBytes;
    return { kind: 'queued' };
  }

  /** How many more runs of `owner` may wait now (the queue's bound and the key's share of it). */
  room(owner: string): number {
    const { maxQueuedRuns, maxQueuedPerKey } = this.#limits;
    return Math.max(
      0,
      Math.min(maxQueuedRuns - this.#waiting.length, maxQueuedPerKey - count(this.#queuedByKey, owner)),
    );
  }

  /** Takes up to `max` waiting runs, oldest first, skipping keys at their running quota. */
  claim(max: number): ClaimedRun[] {
    const claimed: ClaimedRun[] = [];
    for (let index = 0; index < this.#waiting.length && claimed.length < max; ) {
      const owner = this.#waiting[index]!.record.owner;
      if (count(this.#runningByKey, owner) >= this.#limits.maxRunningPerKey) {
        index++;
        continue;
      }
      claimed.push(this.#take(index));
      this.#markRunning(owner);
    }
    return claimed;
  }

  /** Takes run `id` out of the queue to be ended by a cancel; it counts as running until it has. */
  unqueue(id: string): ClaimedRun | undefined {
    const index = this.#waiting.findIndex((entry) => entry.record.id === id);
    if (index < 0) return undefined;
    const claimed = this.#take(index);
    this.#markRunning(claimed.record.owner);
    return claimed;
  }

  /** Takes every waiting run out of the queue (to be cancelled at shutdown). */
  drain(): ClaimedRun[] {
    const runs: ClaimedRun[] = [];
    while (this.#waiting.length > 0) {
      const claimed = this.#take(0);
      this.#markRunning(claimed.record.owner);
      runs.push(claimed);
    }
    return runs;
  }

  /** A run of `owner` that was running has ended. */
  ended(owner: string): void {
    add(this.#runningByKey, owner, -1);
    this.#running--;
  }

  #take(index: number): ClaimedRun {
    const [entry] = this.#waiting.splice(index, 1);
    const { record, secrets, log, requestBytes } = entry!;
    add(this.#queuedByKey, record.owner, -1);
    this.#queuedBytes -= requestBytes;
    return { record, secrets, log };
  }

  #markRunning(owner: string): void {
    add(this.#runningByKey, owner, 1);
    this.#running++;
  }
}

function count(counts: Map<string, number>, key: string): number {
  return counts.get(key) ?? 0;
}

function add(counts: Map<string, number>, key: string, delta: number): void {
  const value = count(counts, key) + delta;
  if (value === 0) counts.delete(key);
  else counts.set(key, value);
}
