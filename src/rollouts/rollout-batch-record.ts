import type { RewardReduction, Sampling } from '../protocol/run-request.js';
import { formatTaskIndices, type PlannedRollout, plannedRollout, planRollouts } from './rollout-plan.js';

/**
 * A rollout batch of the service as it is stored (plain JSON): who asked for what, resolved and
 * validated as `runbridge rollout` validates it. Its pairs are runs; its records are kept beside it.
 */
export interface RolloutBatchRecord {
  id: string;
  owner: string;
  env: string;
  split: string;
  /** The task indices, ascending. */
  indices: number[];
  samples: number;
  /** `provider:name` as resolved at creation. */
  model: string;
  sampling: Omit<Sampling, 'seed'>;
  /** The master seed. */
  seed: number;
  max_turns: number;
  instructions: string | null;
  reward_reduction: RewardReduction;
  retries: number;
  timeout_ms: number;
  policy_version: string | null;
  metadata: Record<string, unknown>;
  /** Epoch milliseconds. */
  created_at: number;
}

/** The batch's pairs, in plan order (a pair's position is its number), seeds derived as the CLI derives them. */
export function planOfBatch(batch: RolloutBatchRecord): PlannedRollout[] {
  return planRollouts({
    env: batch.env,
    split: batch.split,
    indices: batch.indices,
    samples: batch.samples,
    masterSeed: batch.seed,
  });
}

/**
 * Pair `n` of the batch, as {@link planOfBatch} lists it (task by task, the samples inside), without
 * deriving the seeds of the others: a batch's pairs end one by one, each looking up its own.
 */
export function pairOfBatch(batch: RolloutBatchRecord, n: number): PlannedRollout {
  const options = { env: batch.env, split: batch.split, masterSeed: batch.seed };
  return plannedRollout(options, batch.indices[Math.floor(n / batch.samples)]!, n % batch.samples);
}

/** Pairs in the batch. */
export function pairCount(batch: RolloutBatchRecord): number {
  return batch.indices.length * batch.samples;
}

/** The batch's tasks in selection syntax, as its manifest would write them. */
export function tasksOfBatch(batch: RolloutBatchRecord): string {
  return formatTaskIndices(batch.indices);
}
