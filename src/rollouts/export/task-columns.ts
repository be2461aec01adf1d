import type { TrajectoryRecord } from '../trajectory-schema.js';

/** The columns that say which episode a row is, the same in every export format. */
export interface TaskColumns {
  rollout_id: string;
  group_id: string;
  sample_index: number;
  env: string;
  split: string;
  task_index: number;
  /**
   * The task spec as JSON text: each environment's spec has its own shape, and a column whose
   * objects change shape from row to row is what makes Arrow readers fail with a cast error.
   */
  task: string;
  model: string;
  /** The policy the record's batch named (`POST /v1/rollouts`); present only when it named one. */
  policy_version?: string;
}

/** The {@link TaskColumns} of `record`. */
export function taskColumns(record: TrajectoryRecord): TaskColumns {
  return {
    rollout_id: record.rollout_id,
    group_id: record.group_id,
    sample_index: record.sample_index,
    env: record.task.env,
    split: record.task.split,
    task_index: record.task.index,
    task: JSON.stringify(record.task.spec ?? null),
    model: record.model,
    ...(record.policy_version === undefined ? {} : { policy_version: record.policy_version }),
  };
}
