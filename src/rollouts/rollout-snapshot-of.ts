import { pairCount, tasksOfBatch } from './rollout-batch-record.js';
import type { PairState, StoreBudget, StoredBatch } from './rollout-batch-store.js';
import type { RolloutSnapshot, RolloutStatus } from './rollout-snapshot.js';
import { DEFAULT_PASS_THRESHOLD, type RolloutOutcome, summarizeOutcomes } from './rollout-stats.js';

export type { RolloutSnapshot } from './rollout-snapshot.js';

/** A record's compact outcome as the store keeps it beside the record: what the statistics need, and when it started. */
export interface StoredOutcome extends RolloutOutcome {
  /** Epoch seconds. */
  startedAt: number;
  /** The pair's attempts lost with their instance (`instance_lost`); absent for none. */
  lost?: number;
}

/**
 * The snapshot of a stored batch (`GET /v1/rollouts/:id`): its counts and statistics folded from its
 * records' outcomes, with `running` pairs as counted by the caller (from the pairs' runs).
 */
export function snapshotOfBatch(
  stored: StoredBatch,
  outcomeLines: readonly string[],
  pairs: readonly PairState[],
  running: number,
): RolloutSnapshot {
  const { record } = stored;
  const outcomes = outcomeLines.map((line) => JSON.parse(line) as StoredOutcome);
  const results = summarizeOutcomes(outcomes, DEFAULT_PASS_THRESHOLD);
  const total = pairCount(record);
  const open = pairs.filter((pair) => pair.state === 'open').length;
  const started = outcomes.length === 0 ? null : Math.min(...outcomes.map((outcome) => outcome.startedAt));
  return {
    rollout_id: record.id,
    status: batchStatusOf(stored, running),
    created_at: record.created_at / 1000,
    started_at: started,
    finished_at: stored.finishedAt === null ? null : stored.finishedAt / 1000,
    total,
    completed: results.completed,
    failed: results.failed,
    running,
    queued: stored.finishedAt === null ? Math.max(0, open - running) : 0,
    lost_attempts: outcomes.reduce((sum, outcome) => sum + (outcome.lost ?? 0), 0),
    mean_reward: results.mean_reward,
    pass_at_k: results.pass_at_k,
    policy_version: record.policy_version,
    metadata: record.metadata,
    config: {
      env: record.env,
      split: record.split,
      tasks: tasksOfBatch(record),
      task_count: record.indices.length,
      samples: record.samples,
      model: record.model,
      sampling: record.sampling,
      seed: record.seed,
      max_turns: record.max_turns,
      instructions: record.instructions,
      reward_reduction: record.reward_reduction,
      retries: record.retries,
      timeout_seconds: record.timeout_ms / 1000,
      pass_threshold: DEFAULT_PASS_THRESHOLD,
    },
    results,
    records_url: `/v1/rollouts/${record.id}/records`,
    error: stored.stopped === undefined ? null : { code: stored.stopped, message: stoppedMessage(stored.stopped) },
  };
}

/** Why a batch stopped because a record did not fit (see `RolloutBatchStore.settle`). */
function stoppedMessage(budget: StoreBudget): string {
  const setting = budget === 'key_store_full' ? 'RUNBRIDGE_MAX_STORED_BYTES_PER_KEY' : 'RUNBRIDGE_MAX_STORED_BYTES';
  return (
    `Stopped: its next record did not fit in the stored bytes (${setting}), even once this key's ended batches ` +
    'were forgotten; its records so far are kept. Delete finished runs or batches, then post the tasks it did not record again.'
  );
}

/** A batch's status: `running` counts its pairs playing now, which only an open batch needs. */
export function batchStatusOf(stored: StoredBatch, running: number): RolloutStatus {
  if (stored.cancelledAt !== null) return 'cancelled';
  if (stored.finishedAt !== null) return 'completed';
  return stored.records > 0 || running > 0 ? 'running' : 'queued';
}
