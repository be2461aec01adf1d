import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { exampleFailure, runExample } from '../support/run-example.js';
import { FROM_SOURCES } from '../support/spawn-runbridge.js';
import { useTestBridge } from '../support/start-test-bridge.js';
import { textByTurn } from '../support/text-by-turn.js';
import { unusedPort } from '../support/unused-port.js';

const SCRIPT = fileURLToPath(new URL('../../examples/node/stream-run.mjs', import.meta.url));

/**
 * `examples/node/stream-run.mjs` — plain Node ESM on `runbridge/client` — run by `node`, with the
 * package's name resolved to the current sources (never a stale dist/).
 */
const run = (env: Record<string, string>, args: string[] = []) =>
  runExample(process.execPath, [...FROM_SOURCES.execArgv, SCRIPT, ...args], { ...env, ...FROM_SOURCES.env });
const fail = (env: Record<string, string>) =>
  exampleFailure(process.execPath, [...FROM_SOURCES.execArgv, SCRIPT], { ...env, ...FROM_SOURCES.env });

describe('the Node example', () => {
  const bridge = useTestBridge({ RUNBRIDGE_API_KEYS: 'node-key-0123456789' }, { apiKey: 'node-key-0123456789' });

  it('prints tool calls with their arguments, results with reward, streamed text on one line, and the reward at the end', async () => {
    const { stdout } = await run({ RUNBRIDGE_URL: bridge.url, RUNBRIDGE_API_KEY: 'node-key-0123456789' }, ['arith']);
    const [first, ...lines] = stdout.trimEnd().split('\n');
    const runId = /^run (run_\w+)$/.exec(first!)?.[1];
    expect(runId).toBeDefined();
    const log = await bridge.readEvents(runId!);

    const tools = log.flatMap((event) => {
      if (event.event === 'tool.started')
        return [`${event.seq} tool.started ${event.tool} ${JSON.stringify(event.arguments)}`];
      if (event.event === 'tool.completed')
        return [`${event.seq} tool.completed ${event.tool} ${event.duration}s error=false reward=${event.reward} → `];
      return [];
    });
    expect(tools.length).toBeGreaterThanOrEqual(4);
    expect(lines.filter((line) => /^\d+ tool\./.test(line))).toEqual(
      tools.map((expected) => expect.stringMatching(`^${escapeRegExp(expected)}`)),
    );
    expect(lines.filter((line) => /^\d+ tool\.completed submit /.test(line))).toEqual([
      expect.stringContaining('reward=1 → Correct'),
    ]);

    const texts = textByTurn(log);
    expect(texts.length).toBeGreaterThan(0);
    expect(
      lines.filter((line) => /^\d+ message: /.test(line)).map((line) => line.replace(/^\d+ message: /, '')),
    ).toEqual(texts);

    const completed = log.at(-1)!;
    expect(completed.event).toBe('run.completed');
    expect(lines.at(-1)).toBe(
      completed.event === 'run.completed'
        ? `${completed.seq} run.completed reward=1 turns=${completed.turns} stop=finished`
        : '',
    );
  });

  it("exits 1 with the bridge's message when the run is refused", async () => {
    const refused = await fail({ RUNBRIDGE_URL: bridge.url, RUNBRIDGE_API_KEY: 'wrong' });
    expect(refused?.code).toBe(1);
    expect(refused?.stderr).toMatch(/^stream-run: 401 unauthorized: The API key is not valid\./);
  });

  it('says in one line that the bridge cannot be reached when nothing listens, without a stack trace', async () => {
    const down = await fail({ RUNBRIDGE_URL: `http://127.0.0.1:${await unusedPort()}`, RUNBRIDGE_API_KEY: '' });
    expect(down?.code).toBe(1);
    expect(down?.stderr.trimEnd().split('\n')).toEqual([
      expect.stringMatching(
        /^stream-run: POST \/v1\/runs: could not reach runbridge at http:\/\/127\.0\.0\.1:\d+ \(failed: ECONNREFUSED .*\)\. Is the bridge running/,
      ),
    ]);
  });
});

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
