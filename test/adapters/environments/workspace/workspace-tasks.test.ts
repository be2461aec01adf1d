import { describe, expect, it } from 'vitest';
import {
  WORKSPACE_LOCATIONS,
  WorkspaceTaskSchema,
  workspaceTask,
  workspaceTasks,
} from '../../../../adapters/environments/workspace/workspace-tasks.js';

const all = (split: string) =>
  Array.from({ length: workspaceTasks.count(split) }, (_, index) => workspaceTasks.get(split, index));

describe('workspace tasks', () => {
  it('has 500 train and 100 test tasks', () => {
    expect(workspaceTasks.count('train')).toBe(500);
    expect(workspaceTasks.count('test')).toBe(100);
    expect(workspaceTasks.count('other')).toBe(0);
  });

  it('gives the same task for the same split and index, every time', () => {
    expect(workspaceTask('train', 42)).toEqual(workspaceTask('train', 42));
    expect(workspaceTask('test', 42)).not.toEqual(workspaceTask('train', 42));
  });

  it('makes every task a valid task_spec, hides facts in every kind of place, and offers hints to some', () => {
    const tasks = [...all('train'), ...all('test')];
    for (const task of tasks) expect(WorkspaceTaskSchema.parse(JSON.parse(JSON.stringify(task)))).toEqual(task);
    expect(new Set(tasks.map((task) => task.location))).toEqual(new Set(WORKSPACE_LOCATIONS));
    const hinted = tasks.filter((task) => task.hint).length;
    expect(hinted).toBeGreaterThan(tasks.length / 5);
    expect(hinted).toBeLessThan(tasks.length / 2);
  });

  it('refuses unknown splits and indexes out of range', () => {
    expect(() => workspaceTask('dev', 0)).toThrow(/use one of: train, test/);
    expect(() => workspaceTask('test', 100)).toThrow(/tasks 0 to 99/);
  });

  it('validates hand-written task specs', () => {
    const spec = { seed: 1, key: 'cache_ttl', answer: 'amber-1234', location: 'logs' };
    expect(WorkspaceTaskSchema.parse(spec)).toEqual({ ...spec, id: 'custom', hint: false });
    expect(WorkspaceTaskSchema.safeParse({ ...spec, key: 'Cache TTL' }).success).toBe(false);
    expect(WorkspaceTaskSchema.safeParse({ ...spec, location: 'attic' }).success).toBe(false);
    expect(WorkspaceTaskSchema.safeParse({ ...spec, answer: 'a b' }).success).toBe(false);
  });
});
