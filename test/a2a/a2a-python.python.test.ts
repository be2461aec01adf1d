import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { runExample } from '../support/run-example.js';
import { useTestBridge } from '../support/start-test-bridge.js';

const SCRIPT = fileURLToPath(new URL('../../examples/python/a2a_task.py', import.meta.url));
const KEY = 'py-key-0123456789ab';

/**
 * `examples/python/a2a_task.py`: standard-library Python calling runbridge over A2A (docs/a2a.md) —
 * the card, a streaming send, tool progress, an approval answered with a message on the task.
 */
describe('a Python standard-library A2A caller', () => {
  const bridge = useTestBridge({ RUNBRIDGE_API_KEYS: KEY }, { apiKey: KEY });

  it('follows the task, approves the call it waits on, and reads the reward', async () => {
    const { stdout } = await runExample('python3', [SCRIPT, 'arith'], {
      RUNBRIDGE_URL: bridge.url,
      RUNBRIDGE_API_KEY: KEY,
    });
    const lines = stdout.trimEnd().split('\n');
    const taskId = /^task (run_\w+) TASK_STATE_SUBMITTED$/.exec(lines[0]!)?.[1];
    expect(taskId).toBeDefined();
    expect(lines).toContain('TASK_STATE_WORKING');
    expect(lines.some((line) => line.startsWith('tool calculator '))).toBe(true);
    expect(lines.filter((line) => line.startsWith('approving submit '))).toHaveLength(1);
    expect(lines.slice(-2)).toEqual(['TASK_STATE_COMPLETED', 'reward 1']);
    const run = await (await bridge.fetch(`/v1/runs/${taskId}`)).json();
    expect(run).toMatchObject({ status: 'completed', reward: 1 });
  });
});
