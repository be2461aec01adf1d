import type { RunRequest } from '../protocol/run-request.js';
import type { RunRegistry } from '../runs/run-registry.js';
import { pairOfBatch, type RolloutBatchRecord } from './rollout-batch-record.js';
import type { RolloutBatchStore } from './rollout-batch-store.js';

/**
 * Submits pair `n` of `batch` as run `id`, attempt `attempt`, after `lost` attempts lost with their
 * instance: a run like any other on the runs' queue, under the same quotas, marked with the pair it plays.
 */
export async function submitPair(
  registry: RunRegistry,
  batch: RolloutBatchRecord,
  n: number,
  id: string,
  attempt: number,
  lost = 0,
): Promise<void> {
  const pair = pairOfBatch(batch, n);
  const request: RunRequest = {
    env: batch.env,
    task: { split: batch.split, index: pair.index },
    model: batch.model,
    max_turns: batch.max_turns,
    sampling: { ...batch.sampling, seed: pair.seed },
    reward_reduction: batch.reward_reduction,
    await_input: false,
    ...(batch.instructions === null ? {} : { instructions: batch.instructions }),
    metadata: { rollout_id: batch.id, group_id: pair.groupId, sample_index: pair.sample, attempt },
  };
  await registry.createPair(id, request, batch.owner, {
    rollout_id: batch.id,
    pair: n,
    task_index: pair.index,
    sample_index: pair.sample,
    seed: pair.seed,
    attempt,
    ...(lost > 0 ? { lost } : {}),
    timeout_ms: batch.timeout_ms,
  });
}

/** Cancels the runs of `batch`'s pairs not yet settled, without waiting for their ends (none is recorded now). */
export async function cancelOpenPairs(
  registry: RunRegistry,
  store: RolloutBatchStore,
  batch: RolloutBatchRecord,
): Promise<void> {
  const pairs = await store.pairs(batch.id);
  await Promise.all(
    pairs
      .filter((pair) => pair.state === 'open')
      .map((pair) => registry.cancelPair(pair.run, batch.owner).catch(() => undefined)),
  );
}
