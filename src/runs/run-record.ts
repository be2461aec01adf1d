import type { TaskRef } from '../protocol/run-events.js';
import type { RunRequest } from '../protocol/run-request.js';
import type { RunTraceContext } from '../telemetry/trace-context.js';
import { type ByteAccount, EventLog } from './event-log.js';

/** What a run is made of before anything happens to it: who asked for what, and when. Plain JSON. */
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
  /** The trace the run belongs to, when it was made while tracing (docs/operations.md#traces). */
  trace?: RunTraceContext;
  /** Set on a run that plays one (task, sample) pair of a rollout batch (docs/rollouts.md, "The service"). */
  rollout?: RolloutPairRef;
}

/**
 * Which pair of which rollout batch a run plays, and its attempt: a pair that failed is played again as a
 * new run with `attempt + 1` while the batch's retries allow. Such runs are left out of `GET /v1/runs`.
 */
export interface RolloutPairRef {
  /** The batch. */
  rollout_id: string;
  /** The pair's position in the batch's plan (tasks × samples, task by task). */
  pair: number;
  task_index: number;
  sample_index: number;
  /** The sampling seed derived for the pair, as `runbridge rollout` derives it. */
  seed: number;
  attempt: number;
  /** The pair's earlier attempts that ended with the instance playing them (`instance_lost`); absent for none. */
  lost?: number;
  /** The batch's per-episode time limit, under the server's own (`RUNBRIDGE_RUN_TIMEOUT_SECONDS`). */
  timeout_ms: number;
}

/** Characters of JSON a record holds: what the stored-bytes budget counts of it beside its log. */
export function recordBytes(record: RunRecord): number {
  return JSON.stringify(record.request).length;
}

/**
 * A new, empty log for the run of `record`, its summary folded with the record's reward reduction; with
 * `maxRunBytes`, it takes what the record leaves of them.
 */
export function newRunLog(
  record: RunRecord,
  options: { maxEvents: number; maxRunBytes?: number; wakeMs?: number; now: () => number; account?: ByteAccount },
): EventLog {
  const { maxRunBytes = Number.POSITIVE_INFINITY, ...rest } = options;
  return new EventLog(record.id, {
    ...rest,
    maxBytes: maxRunBytes - recordBytes(record),
    rewardReduction: record.request.reward_reduction,
  });
}
