import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { parseSseText } from '../support/parse-sse-text.js';
import { exampleFailure, runExample } from '../support/run-example.js';
import { scriptedProvider } from '../support/scripted-model.js';
import { useTestBridge } from '../support/start-test-bridge.js';

const SCRIPT = fileURLToPath(new URL('../../examples/curl/run.sh', import.meta.url));
const CANCEL = fileURLToPath(new URL('../../examples/curl/cancel.sh', import.meta.url));

/** `examples/curl/run.sh` — POSIX sh, curl and sed — run by `sh` against a bridge that wants a key. */
describe('the curl example', () => {
  const bridge = useTestBridge({ RUNBRIDGE_API_KEYS: 'curl-key-0123456789' }, { apiKey: 'curl-key-0123456789' });

  const env = (key: string) => ({ RUNBRIDGE_URL: `${bridge.url}/`, RUNBRIDGE_API_KEY: key });

  it('starts a run with the key and prints its whole event stream, run.started to run.completed', async () => {
    const { stdout } = await runExample('sh', [SCRIPT, 'arith'], env('curl-key-0123456789'));
    const frames = parseSseText(stdout);
    expect(frames[0]?.event).toBe('run.started');
    expect(frames.at(-1)?.event).toBe('run.completed');
    expect(stdout).toMatch(/^event: run\.started$[\s\S]*^event: tool\.completed$[\s\S]*^event: run\.completed$/m);

    const runId = (JSON.parse(frames[0]!.data) as { run_id: string }).run_id;
    const log = await bridge.readEvents(runId);
    expect(frames.map((frame) => `${frame.id} ${frame.event}`)).toEqual(
      log.map((event) => `${event.seq} ${event.event}`),
    );
    expect(log[0]).toMatchObject({ env: 'arith' });
    expect(log.at(-1)).toMatchObject({ event: 'run.completed', reward: 1 });
  });

  it("stops with the bridge's own error when the run is refused", async () => {
    const refused = await exampleFailure('sh', [SCRIPT], env('wrong-key'));
    expect(refused?.code).toBe(1);
    expect(refused?.stderr).toContain('"code":"unauthorized"');
  });
});

/** `examples/curl/cancel.sh` against a bridge without API keys, which refuses a POST not sent as JSON. */
describe('the curl cancel example', () => {
  const bridge = useTestBridge({}, { providers: [scriptedProvider({ hang: [{ hang: true }] })] });

  it('cancels a running run and prints the status it ended with', async () => {
    const runId = await bridge.startRun({ env: 'arith', model: 'scripted:hang' });
    const { stdout } = await runExample('sh', [CANCEL, runId], { RUNBRIDGE_URL: bridge.url });
    expect(JSON.parse(stdout)).toEqual({ run_id: runId, status: 'cancelled' });
    expect((await bridge.readEvents(runId)).at(-1)).toMatchObject({ event: 'run.cancelled', reason: 'client' });
  });

  it("stops with the bridge's own error for a run it does not know", async () => {
    const failure = await exampleFailure('sh', [CANCEL, 'run_nothing'], { RUNBRIDGE_URL: bridge.url });
    expect(failure?.code).toBe(1);
    expect(failure?.stderr).toContain('"code":"run_not_found"');
  });
});
