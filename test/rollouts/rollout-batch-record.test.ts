import { describe, expect, it } from 'vitest';
import { pairOfBatch, planOfBatch, type RolloutBatchRecord } from '../../src/rollouts/rollout-batch-record.js';

const batch: RolloutBatchRecord = {
  id: 'ro_test',
  owner: 'owner',
  env: 'arith',
  split: 'train',
  indices: [0, 3, 4, 17, 250],
  samples: 3,
  model: 'offline',
  sampling: {},
  seed: 42,
  max_turns: 20,
  instructions: null,
  reward_reduction: 'last',
  retries: 2,
  timeout_ms: 600_000,
  policy_version: null,
  metadata: {},
  created_at: 0,
};

describe("a service batch's pairs", () => {
  it('are found one at a time as the whole plan lists them, seeds included', () => {
    const plan = planOfBatch(batch);
    expect(plan).toHaveLength(15);
    expect(plan.map((_, n) => pairOfBatch(batch, n))).toEqual(plan);
  });
});
