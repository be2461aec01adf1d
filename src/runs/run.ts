import type { TaskRef } from '../protocol/run-events.js';
import type { RunRequest } from '../protocol/run-request.js';
import { isFinishedStatus, type RunSnapshot, type RunStatus } from '../protocol/run-snapshot.js';
import { webhookEvents } from '../webhooks/webhook-events.js';
import { EventLog } from './event-log.js';
import { applyEvent, emptySummary, type RunSummary } from './run-summary.js';

/** What a run is made of before anything happens to it: who asked for what, and when. */
export interface RunRecord {
  id: string;
  owner: string;
  env: string;
  task: TaskRef;
  /** `provider:name` as resolved at creation. */
  model: string;
  /** The request without `secrets`, which are never stored with the run. */
  request: Omit<RunRequest, 'secrets'>;
  /** Epoch milliseconds. */
  createdAt: number;
}

/**
 * One run: its record, its event log, and who is watching it. Status and totals are folded from
 * the log as events are appended, so the snapshot is a view of the log, never a second account.
 */
export class Run {
  readonly id: string;
  readonly owner: string;
  readonly env: string;
  readonly task: TaskRef;
  readonly model: string;
  readonly metadata: Record<string, unknown>;
  readonly createdAt: number;
  readonly request: Omit<RunRequest, 'secrets'>;
  readonly log: EventLog;
  readonly #summary: RunSummary = emptySummary();
  #updatedAt: number;
  #lastTouchedAt: number;
  #subscribers = 0;
  #finishedAt: number | undefined;
  #storedBytes: number;
  readonly #onTouch: ((now: number) => void) | undefined;

  /**
   * `onTouch` hears every touch (a store that shares runs between instances passes them on, so the
   * instance executing the run knows it is watched elsewhere).
   */
  constructor(record: RunRecord, options: { maxEvents: number; now: () => number; onTouch?: (now: number) => void }) {
    this.id = record.id;
    this.owner = record.owner;
    this.env = record.env;
    this.task = record.task;
    this.model = record.model;
    this.request = record.request;
    this.metadata = record.request.metadata ?? {};
    this.createdAt = record.createdAt;
    this.#updatedAt = record.createdAt;
    this.#lastTouchedAt = record.createdAt;
    this.#onTouch = options.onTouch;
    this.log = new EventLog(record.id, options.maxEvents, options.now);
    this.#storedBytes = JSON.stringify(record.request).length;
    const reduction = record.request.reward_reduction;
    this.log.onAppend(({ event, json, detail }) => {
      this.#storedBytes += json.length + (detail === undefined ? 0 : JSON.stringify(detail).length);
      applyEvent(this.#summary, event, reduction);
      this.#updatedAt = event.timestamp * 1000;
      if (isFinishedStatus(this.#summary.status)) this.#finishedAt = this.#updatedAt;
    });
  }

  /** The record the run was made from. */
  get record(): RunRecord {
    const { id, owner, env, task, model, request, createdAt } = this;
    return { id, owner, env, task, model, request, createdAt };
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

  /**
   * What the run holds: its request and every entry of its log (events and details), in characters
   * of JSON — what the stored-bytes budget (`RUNBRIDGE_MAX_STORED_BYTES`) counts.
   */
  get storedBytes(): number {
    return this.#storedBytes;
  }

  get lastTouchedAt(): number {
    return this.#lastTouchedAt;
  }

  get subscribers(): number {
    return this.#subscribers;
  }

  /** Records that a caller looked at the run; untouched runs with no subscriber are orphans. */
  touch(now: number): void {
    this.#lastTouchedAt = Math.max(this.#lastTouchedAt, now);
    this.#onTouch?.(now);
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
      stop_reason: summary.stopReason,
      pending_approvals: summary.pendingApprovals.map((entry) => ({ ...entry })),
      last_seq: this.log.lastSeq,
      // The deliveries are the dispatcher's to fill in (RunRegistry.snapshot): they change after the log does.
      ...(this.request.webhook === undefined
        ? {}
        : { webhook: { url: this.request.webhook.url, events: webhookEvents(this.request.webhook), deliveries: [] } }),
    };
  }
}
