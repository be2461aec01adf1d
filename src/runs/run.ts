import type { CancelReason, TaskRef } from '../protocol/run-events.js';
import type { RunRequest } from '../protocol/run-request.js';
import { isFinishedStatus, type RunSnapshot, type RunStatus } from '../protocol/run-snapshot.js';
import type { EpisodeRecord } from './episode-record.js';
import { EventLog } from './event-log.js';
import { RunCancelledError } from './run-cancelled-error.js';
import { applyEvent, emptySummary, type RunSummary } from './run-summary.js';

export interface RunInit {
  id: string;
  owner: string;
  env: string;
  task: TaskRef;
  model: string;
  request: RunRequest;
  maxEvents: number;
  now: () => number;
}

/**
 * One run: its request, its event log, its cancel switch and who may see it. Status and totals are
 * folded from the log as events are appended, so the snapshot is a view of the log.
 */
export class Run {
  readonly id: string;
  readonly owner: string;
  readonly env: string;
  readonly task: TaskRef;
  readonly model: string;
  readonly metadata: Record<string, unknown>;
  readonly createdAt: number;
  readonly log: EventLog;
  readonly controller = new AbortController();
  /** The request without `secrets`, which leave the run as soon as the episode has them. */
  readonly request: Omit<RunRequest, 'secrets'>;
  #secrets: Record<string, unknown> | undefined;
  #summary: RunSummary = emptySummary();
  #updatedAt: number;
  #lastTouchedAt: number;
  #subscribers = 0;
  #finishedAt: number | undefined;
  /** The full episode record, once the episode is over. */
  record: EpisodeRecord | undefined;

  constructor(init: RunInit) {
    const { secrets, ...request } = init.request;
    this.id = init.id;
    this.owner = init.owner;
    this.env = init.env;
    this.task = init.task;
    this.model = init.model;
    this.request = request;
    this.#secrets = secrets;
    this.metadata = request.metadata ?? {};
    this.createdAt = init.now();
    this.#updatedAt = this.createdAt;
    this.#lastTouchedAt = this.createdAt;
    this.log = new EventLog(init.id, init.maxEvents, init.now);
    this.log.onAppend(({ event }) => {
      applyEvent(this.#summary, event, request.reward_reduction);
      this.#updatedAt = event.timestamp * 1000;
      if (isFinishedStatus(this.#summary.status)) this.#finishedAt = this.#updatedAt;
    });
  }

  get status(): RunStatus {
    return this.#summary.status;
  }

  get finished(): boolean {
    return isFinishedStatus(this.#summary.status);
  }

  /** Epoch ms at which the run reached its terminal event. */
  get finishedAt(): number | undefined {
    return this.#finishedAt;
  }

  get lastTouchedAt(): number {
    return this.#lastTouchedAt;
  }

  get subscribers(): number {
    return this.#subscribers;
  }

  /** Hands the secrets over exactly once (to the episode that forwards them to ORS). */
  takeSecrets(): Record<string, unknown> | undefined {
    const secrets = this.#secrets;
    this.#secrets = undefined;
    return secrets;
  }

  /** Records that a caller looked at the run; untouched runs with no subscriber are orphans. */
  touch(now: number): void {
    this.#lastTouchedAt = now;
  }

  /** Counts a subscriber in; the returned function counts it out (and touches the run). */
  attach(now: () => number): () => void {
    this.#subscribers++;
    this.touch(now());
    let attached = true;
    return () => {
      if (!attached) return;
      attached = false;
      this.#subscribers--;
      this.touch(now());
    };
  }

  /** Aborts the run's episode with `reason`; a finished or already cancelled run is left alone. */
  cancel(reason: CancelReason): void {
    if (this.finished || this.controller.signal.aborted) return;
    this.controller.abort(new RunCancelledError(reason));
  }

  snapshot(): RunSnapshot {
    const summary = this.#summary;
    return {
      run_id: this.id,
      status: summary.status,
      created_at: this.createdAt / 1000,
      updated_at: this.#updatedAt / 1000,
      env: this.env,
      task: this.task,
      model: this.model,
      metadata: this.metadata,
      turns: summary.turns,
      usage: summary.usage,
      reward: summary.reward,
      finished: summary.finished,
      output: summary.output,
      error: summary.error,
      last_seq: this.log.lastSeq,
    };
  }
}
