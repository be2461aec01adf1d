import { describe, expect, it } from 'vitest';
import { generateWorkspaceFiles } from '../../../../adapters/environments/workspace/workspace-files.js';
import { type WorkspaceTask, workspaceTasks } from '../../../../adapters/environments/workspace/workspace-tasks.js';

const tasks = Array.from({ length: 100 }, (_, index) => workspaceTasks.get('train', index));
const directory: Record<WorkspaceTask['location'], RegExp> = {
  logs: /^logs\/.*\.log$/,
  archive: /^archive\/.*\.log$/,
  config: /^config\/.*\.ini$/,
  notes: /^notes\/.*\.md$/,
  data: /^data\/.*\.csv$/,
};

/** Lines recording a value for exactly `key`, in any notation the generator uses. */
function records(files: Map<string, string>, key: string): Array<{ path: string; line: string }> {
  const exact = new RegExp(`\\b${key}\\b("?\\s*[:=,]|\\s+is\\s)`);
  return [...files].flatMap(([path, content]) =>
    content
      .split('\n')
      .filter((line) => exact.test(line))
      .map((line) => ({ path, line })),
  );
}

describe('generateWorkspaceFiles', () => {
  it('generates the same files for the same task', () => {
    expect(generateWorkspaceFiles(tasks[5]!)).toEqual(generateWorkspaceFiles(tasks[5]!));
    expect(generateWorkspaceFiles(tasks[5]!)).not.toEqual(generateWorkspaceFiles(tasks[6]!));
  });

  it('makes 10 to 30 files, sorted by path, at least one of them longer than 4096 characters', () => {
    for (const task of tasks) {
      const files = generateWorkspaceFiles(task);
      expect(files.size).toBeGreaterThanOrEqual(10);
      expect(files.size).toBeLessThanOrEqual(30);
      expect([...files.keys()]).toEqual([...files.keys()].sort());
      expect(Math.max(...[...files.values()].map((content) => content.length))).toBeGreaterThan(4096);
    }
  });

  it("records the task's key exactly once, with the answer, in a file of the task's location", () => {
    for (const task of tasks) {
      const found = records(generateWorkspaceFiles(task), task.key);
      expect(found, task.id).toHaveLength(1);
      expect(found[0]!.path).toMatch(directory[task.location]);
      expect(found[0]!.line).toContain(task.answer);
    }
  });

  it('adds near misses and mentions of the key that do not record its value', () => {
    let nearMisses = 0;
    let mentions = 0;
    for (const task of tasks) {
      const all = [...generateWorkspaceFiles(task).values()].join('\n');
      if (all.includes(`${task.key}_previous`)) nearMisses++;
      if (all.includes(`double-check the ${task.key} setting`)) mentions++;
    }
    expect(nearMisses).toBeGreaterThan(30);
    expect(mentions).toBeGreaterThan(30);
  });
});
