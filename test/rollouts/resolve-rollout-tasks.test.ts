import { describe, expect, it } from 'vitest';
import { resolveRolloutTasks } from '../../src/rollouts/resolve-rollout-tasks.js';
import { EnvCatalog } from '../../src/runs/env-catalog.js';
import { useRolloutRig } from './rollout-rig.js';

describe('resolveRolloutTasks', () => {
  const rig = useRolloutRig();

  it("asks the catalog it is given, so batches share its cached answers with the bridge's runs", async () => {
    let listed = 0;
    const catalog = new EnvCatalog({
      listEnvironments: (signal) => {
        listed++;
        return rig.ors.listEnvironments(signal);
      },
      splits: (env, signal) => rig.ors.splits(env, signal),
      numTasks: (env, split, signal) => rig.ors.numTasks(env, split, signal),
      taskSchema: (env, signal) => rig.ors.taskSchema(env, signal),
      tools: (env, signal) => rig.ors.tools(env, signal),
    });
    await catalog.assertKnown('arith');
    const first = await resolveRolloutTasks(catalog, rig.ors, { env: 'arith', tasks: '0:3' });
    const second = await resolveRolloutTasks(catalog, rig.ors, { env: 'arith', split: 'train', tasks: '2' });
    expect(first).toEqual({ split: 'train', indices: [0, 1, 2] });
    expect(second).toEqual({ split: 'train', indices: [2] });
    expect(listed).toBe(1);
  });
});
