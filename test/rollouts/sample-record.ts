import type { RolloutBatchRecord } from '../../src/rollouts/rollout-batch-record.js';
import type { TrajectoryRecord, TrajectoryStep } from '../../src/rollouts/trajectory-schema.js';

/** A small valid trajectory record of task `index`, sample `sample` of `arith/train`, for store and manifest tests. */
export function sampleRecord(
  index: number,
  sample: number,
  overrides: Partial<TrajectoryRecord> = {},
): TrajectoryRecord {
  return {
    schema_version: 1,
    rollout_id: `ro_${index}_${sample}`,
    group_id: `arith/train/${index}`,
    sample_index: sample,
    attempt: 1,
    task: { env: 'arith', split: 'train', index, spec: null },
    model: 'offline',
    sampling: { seed: 1 },
    tools: [],
    messages: [{ role: 'user', content: 'How many?' }],
    steps: [],
    rewards: [],
    reward: 1,
    reward_reduction: 'last',
    finished: true,
    status: 'completed',
    stop_reason: 'finished',
    error: null,
    output: '',
    timing: { started_at: 1, ended_at: 2, total_ms: 1000, model_ms: 500, env_ms: 400, overhead_ms: 100 },
    metrics: { turns: 1, tool_calls: 0, failed_tool_calls: 0, input_tokens: 1, output_tokens: 1, total_tokens: 2 },
    ...overrides,
  };
}

/** A model turn of a record, without token data unless `tokens` gives some, for the token checks' tests. */
export function sampleStep(turn: number, tokens: Partial<TrajectoryStep>): TrajectoryStep {
  return {
    turn,
    finish_reason: 'tool_calls',
    raw_finish_reason: 'tool_calls',
    usage: { input_tokens: 0, output_tokens: 0, total_tokens: 0 },
    reward: null,
    tool_calls: [],
    prompt_token_ids: null,
    token_ids: null,
    logprobs: null,
    logprobs_raw: null,
    model_ms: 1,
    ...tokens,
  };
}

/** A stored batch of the service: one task of `arith/train`, one sample, with `overrides`. */
export function sampleBatch(overrides: Partial<RolloutBatchRecord> = {}): RolloutBatchRecord {
  return {
    id: 'ro_sample',
    owner: 'local',
    env: 'arith',
    split: 'train',
    indices: [0],
    samples: 1,
    model: 'offline:offline',
    sampling: {},
    seed: 0,
    max_turns: 20,
    instructions: null,
    reward_reduction: 'last',
    retries: 1,
    timeout_ms: 60_000,
    policy_version: null,
    metadata: {},
    created_at: 1000,
    ...overrides,
  };
}
