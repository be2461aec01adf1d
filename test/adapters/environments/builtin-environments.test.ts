import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { builtinEnvironments } from '../../../adapters/environments/builtin-environments.js';

describe('builtinEnvironments', () => {
  it('lists arith first, then workspace, with unique names', () => {
    expect(builtinEnvironments.map((environment) => environment.name)).toEqual(['arith', 'workspace']);
  });

  it.each(builtinEnvironments.map((environment) => [environment.name, environment] as const))(
    '%s has a train and a test split of at least 100 tasks, each a valid task_spec after a JSON round trip',
    (_name, environment) => {
      expect(environment.splits).toEqual([
        { name: 'train', type: 'train' },
        { name: 'test', type: 'test' },
      ]);
      for (const split of ['train', 'test']) {
        expect(environment.tasks.count(split)).toBeGreaterThanOrEqual(100);
        const task: unknown = environment.tasks.get(split, 0);
        expect(environment.taskSchema.parse(JSON.parse(JSON.stringify(task)))).toEqual(task);
      }
    },
  );

  it.each(builtinEnvironments.map((environment) => [environment.name, environment] as const))(
    "%s describes every tool's input as an object JSON Schema (or none), with unique tool names",
    (_name, environment) => {
      const names = environment.tools.map((tool) => tool.name);
      expect(new Set(names).size).toBe(names.length);
      for (const tool of environment.tools) {
        expect(tool.description.length).toBeGreaterThan(10);
        if (tool.input) expect(z.toJSONSchema(tool.input)).toMatchObject({ type: 'object' });
      }
    },
  );
});
