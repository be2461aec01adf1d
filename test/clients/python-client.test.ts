import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runExample } from '../support/run-example.js';
import { startTestBridge, type TestBridge } from '../support/start-test-bridge.js';

const SCRIPT = fileURLToPath(new URL('../../examples/python/stream_run.py', import.meta.url));

/**
 * `examples/python/stream_run.py` — standard-library Python reading `data:` lines and `json.loads`
 * on each, the way clients of the original `/v1/runs` design read it — against the default format.
 */
describe('a Python standard-library client', () => {
  let bridge: TestBridge;

  beforeAll(async () => {
    bridge = await startTestBridge({ RUNBRIDGE_API_KEYS: 'py-key' }, { apiKey: 'py-key' });
  });
  afterAll(() => bridge.shutdown());

  it('starts a run and prints every event of its stream, in order, to the result', async () => {
    const { stdout } = await runExample('python3', [SCRIPT, 'arith'], {
      RUNBRIDGE_URL: bridge.url,
      RUNBRIDGE_API_KEY: 'py-key',
    });
    const [first, ...lines] = stdout.trimEnd().split('\n');
    const runId = /^run (run_\w+)$/.exec(first!)?.[1];
    expect(runId).toBeDefined();
    const log = await bridge.readEvents(runId!);
    expect(lines.map((line) => line.split(' ').slice(0, 2).join(' '))).toEqual(
      log.map((event) => `${event.seq} ${event.event}`),
    );
    const completed = log.at(-1)!;
    expect(completed.event).toBe('run.completed');
    expect(lines.at(-1)).toBe(
      `${completed.seq} run.completed reward=1 output=${JSON.stringify(completed.event === 'run.completed' ? completed.output : '')}`,
    );
    expect(lines.find((line) => line.includes('tool.started'))).toMatch(/^\d+ tool\.started calculator /);
  });
});
