import type { OrsClient } from '../ors/client/ors-client.js';
import type { EnvCatalog } from '../runs/env-catalog.js';
import { parseTaskSelection, resolveTaskIndices, type TaskLimit } from './rollout-plan.js';
import type { RolloutSettings } from './rollout-settings.js';

/**
 * The split (the environment's first when none was named) and the task indices a batch plays, checked
 * against the ORS server through `catalog` — the bridge's, whose cached answers its runs share — : 404
 * for an unknown environment, 400 for an unknown split or tasks out of range, and 400 `batch_too_large`
 * past `limit`, judged before the selection is expanded.
 */
export async function resolveRolloutTasks(
  catalog: EnvCatalog,
  ors: Pick<OrsClient, 'numTasks'>,
  settings: Pick<RolloutSettings, 'env' | 'split' | 'tasks'>,
  signal?: AbortSignal,
  limit?: TaskLimit,
): Promise<{ split: string; indices: number[] }> {
  const requested = settings.split === undefined ? undefined : { split: settings.split, index: 0 };
  // Asked without a spec, the catalog answers a split and an index.
  const { split } = (await catalog.resolve(settings.env, requested)) as { split: string; index: number };
  const count = await ors.numTasks(settings.env, split, signal);
  const selection =
    typeof settings.tasks === 'string' ? parseTaskSelection(settings.tasks, limit) : (settings.tasks ?? [{ start: 0 }]);
  return { split, indices: resolveTaskIndices(selection, count, limit) };
}
