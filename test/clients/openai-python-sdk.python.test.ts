import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { beforeAll, describe, expect, it } from 'vitest';
import { streamLikeOpenAiPython } from '../support/openai-python-sse.js';
import { runExample } from '../support/run-example.js';
import { useTestBridge } from '../support/start-test-bridge.js';

const SCRIPT = fileURLToPath(new URL('../../examples/python/openai_sdk_run.py', import.meta.url));
const EVENTS_DOC = fileURLToPath(new URL('../../docs/events.md', import.meta.url));
const STAND_IN = fileURLToPath(new URL('../support/openai-python/', import.meta.url));
const KEY = 'sdk-key-0123456789ab';

/**
 * `examples/python/openai_sdk_run.py`, shown whole in docs/events.md: the openai Python SDK starts a
 * run and reads it as a chat completion stream with `client.get(…, stream=True)`. The SDK sends
 * `Accept: application/json` with that request too. It runs with the real SDK when python3 has it,
 * else with `test/support/openai-python/`, which does on the wire what the SDK does for these calls.
 */
describe('the openai Python SDK reading a run', () => {
  const bridge = useTestBridge({ RUNBRIDGE_API_KEYS: KEY }, { apiKey: KEY });
  let pythonPath: Record<string, string>;

  beforeAll(async () => {
    const real = await promisify(execFile)('python3', ['-c', 'import openai']).then(
      () => true,
      () => false,
    );
    pythonPath = real ? {} : { PYTHONPATH: STAND_IN };
  });

  it('is shown whole in docs/events.md', () => {
    const script = readFileSync(SCRIPT, 'utf8');
    expect(readFileSync(EVENTS_DOC, 'utf8')).toContain(`\`\`\`python\n${script}\`\`\``);
  });

  it("prints the run's answer, chunk by chunk, as format=openai streams it", async () => {
    const { stdout } = await runExample('python3', [SCRIPT], {
      RUNBRIDGE_URL: `${bridge.url}/`,
      RUNBRIDGE_API_KEY: KEY,
      ...pythonPath,
    });
    const runs = (await (await bridge.fetch('/v1/runs?limit=1')).json()) as { data: Array<{ run_id: string }> };
    const runId = runs.data[0]!.run_id;
    const chunks = (await streamLikeOpenAiPython(
      (
        await bridge.fetch(`/v1/runs/${runId}/events?format=openai`)
      ).body!,
    )) as Array<{ choices: Array<{ delta: { content?: string } }> }>;
    const answer = chunks.flatMap((chunk) => chunk.choices.map((choice) => choice.delta.content ?? '')).join('');
    expect(answer).toMatch(/The answer is \d+\./);
    expect(stdout).toBe(`${answer}\n`);
  });
});
