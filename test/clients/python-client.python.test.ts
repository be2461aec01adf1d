import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { exampleFailure, runExample } from '../support/run-example.js';
import { useTestBridge } from '../support/start-test-bridge.js';
import { unusedPort } from '../support/unused-port.js';

const SCRIPT = fileURLToPath(new URL('../../examples/python/stream_run.py', import.meta.url));
const DELTAS = new Set(['message.delta', 'reasoning.delta']);

/**
 * `examples/python/stream_run.py` — standard-library Python reading `data:` lines and `json.loads`
 * on each, the way a plain SSE client reads it — against the default format.
 */
describe('a Python standard-library client', () => {
  const bridge = useTestBridge({ RUNBRIDGE_API_KEYS: 'py-key-0123456789ab' }, { apiKey: 'py-key-0123456789ab' });

  it('prints a line per event, with text and reasoning deltas streamed inline on one line per stretch', async () => {
    const { stdout } = await runExample('python3', [SCRIPT, 'arith'], {
      RUNBRIDGE_URL: bridge.url,
      RUNBRIDGE_API_KEY: 'py-key-0123456789ab',
    });
    const [first, ...lines] = stdout.trimEnd().split('\n');
    const runId = /^run (run_\w+)$/.exec(first!)?.[1];
    expect(runId).toBeDefined();
    const log = await bridge.readEvents(runId!);

    // Every event that is not a delta has its own line, in order.
    const eventLines = lines.filter((line) => !/^\d+ (message|reasoning): /.test(line));
    expect(eventLines.map((line) => line.split(' ').slice(0, 2).join(' '))).toEqual(
      log.filter((event) => !DELTAS.has(event.event)).map((event) => `${event.seq} ${event.event}`),
    );
    // Each stretch of deltas is one line, starting at its first delta's seq and holding all their text.
    const stretches: string[] = [];
    let previous: string | undefined;
    for (const event of log) {
      if (event.event === 'message.delta' || event.event === 'reasoning.delta') {
        const kind = event.event === 'message.delta' ? 'message' : 'reasoning';
        if (kind !== previous) stretches.push(`${event.seq} ${kind}: `);
        stretches[stretches.length - 1] += event.delta;
        previous = kind;
      } else {
        previous = undefined;
      }
    }
    expect(stretches.length).toBeGreaterThan(1);
    expect(lines.filter((line) => /^\d+ (message|reasoning): /.test(line))).toEqual(
      stretches.map((line) => line.trimEnd()),
    );
    expect(lines.length).toBeLessThan(log.length / 2);

    const completed = log.at(-1)!;
    expect(completed.event).toBe('run.completed');
    expect(lines.at(-1)).toBe(
      `${completed.seq} run.completed reward=1 output=${JSON.stringify(completed.event === 'run.completed' ? completed.output : '')}`,
    );
    expect(lines.find((line) => line.includes('tool.started'))).toMatch(/^\d+ tool\.started calculator /);
  });

  it('says where it looked and what to do when the bridge is down, without a stack trace', async () => {
    const port = await unusedPort();
    const failure = await exampleFailure('python3', [SCRIPT], { RUNBRIDGE_URL: `http://127.0.0.1:${port}` });
    expect(failure?.code).toBe(1);
    expect(failure?.stderr).toBe(
      `stream_run.py: cannot reach the bridge at http://127.0.0.1:${port} ([Errno 111] Connection refused). ` +
        'Start it with `npm start` (or `npx runbridge serve`), or point RUNBRIDGE_URL at a running one.\n',
    );
  });

  it("prints the bridge's own message when it refuses the run", async () => {
    const failure = await exampleFailure('python3', [SCRIPT, 'nowhere'], {
      RUNBRIDGE_URL: bridge.url,
      RUNBRIDGE_API_KEY: 'py-key-0123456789ab',
    });
    expect(failure?.code).toBe(1);
    expect(failure?.stderr).toMatch(
      /^stream_run\.py: the bridge answered 404: Unknown environment "nowhere"\. Available: /,
    );
    expect(failure?.stderr).not.toContain('Traceback');
  });
});
