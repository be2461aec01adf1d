import { execFileSync, spawn } from 'node:child_process';
import { once } from 'node:events';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunEvent } from '../../src/protocol/run-events.js';
import { chatProvider, echo, echoBothThen, startHitlBridge } from '../hitl/hitl-support.js';
import { eventually } from '../support/eventually.js';
import { scriptedProvider } from '../support/scripted-model.js';
import { runbridgeArgv } from '../support/spawn-runbridge.js';
import type { TestBridge } from '../support/start-test-bridge.js';

/**
 * `runbridge run --approve` and `--chat` in a real terminal (docs/protocol.md §7): the command runs
 * from the sources inside tmux, the test types as a person would (`send-keys`) and reads the screen
 * (`capture-pane`); the bridge it talks to runs here, so the test also sees what the run did.
 */

/** A tmux server of this test's own, so no other tmux session is touched. */
const SOCKET = `runbridge-hitl-${process.pid}`;

function tmux(...args: string[]): string {
  return execFileSync('tmux', ['-L', SOCKET, '-f', '/dev/null', ...args], { encoding: 'utf8' });
}

const quote = (text: string) => `'${text.replaceAll("'", `'\\''`)}'`;

/** Starts `runbridge run ARGS` in a new tmux window `name`; the pane stays after it exits, showing its exit code. */
function startInTerminal(name: string, args: string[]): void {
  const env = Object.entries({ NO_COLOR: '1', RUNBRIDGE_API_KEYS: '' }).map(([key, value]) => `${key}=${quote(value)}`);
  const command = [process.execPath, ...runbridgeArgv(['run', ...args])].map(quote);
  const shell = `env ${env.join(' ')} ${command.join(' ')}; echo "[exit $?]"; sleep 600`;
  tmux('new-session', '-d', '-s', name, '-x', '200', '-y', '60', shell);
}

/** The text on the screen of window `name` (wrapped lines joined). */
function screen(name: string): string {
  return tmux('capture-pane', '-p', '-J', '-t', name, '-S', '-200');
}

/** Waits until the screen of `name` matches `pattern`, and returns it; a failure shows the screen as it was last. */
function waitForScreen(name: string, pattern: RegExp): Promise<string> {
  return eventually(
    () => {
      const text = screen(name);
      if (!pattern.test(text)) throw new Error(`the screen shows:\n${text}`);
      return text;
    },
    `the screen to show ${pattern}`,
    // Each look is a tmux process; the command starts from the sources through tsx, slow on a busy machine.
    { intervalMs: 50, timeoutMs: 30_000 },
  );
}

/** Types `keys` into window `name` as tmux key names (`Enter`, `C-u`, or literal text). */
function type(name: string, ...keys: string[]): void {
  tmux('send-keys', '-t', name, ...keys);
}

let bridge: TestBridge;

beforeAll(async () => {
  bridge = await startHitlBridge([
    chatProvider,
    scriptedProvider({
      two: echoBothThen({ text: 'Finishing. ', toolCalls: [echo('end', { reward: 1, finished: true })] }),
    }),
  ]);
});
afterAll(async () => {
  try {
    tmux('kill-server');
  } catch {
    // No window was ever opened.
  }
  await bridge.shutdown();
});

/** The events of the newest run on the bridge. */
async function newestRunEvents(): Promise<RunEvent[]> {
  const page = (await (await bridge.fetch('/v1/runs?limit=1')).json()) as { data: Array<{ run_id: string }> };
  return bridge.readEvents(page.data[0]!.run_id);
}

/** The newest run read the two messages typed (`Hello there.`, `And again.`) and was cancelled at `/exit`. */
async function expectTypedChat(): Promise<void> {
  const events = await newestRunEvents();
  expect(events.filter((event) => event.event === 'message.received').map((event) => event.content)).toEqual([
    'Hello there.',
    'And again.',
  ]);
  expect(events.at(-1)).toMatchObject({ event: 'run.cancelled', reason: 'client' });
}

describe('runbridge run in a terminal, with a person in the loop', () => {
  it('--approve asks y / n / e for each call: an edit runs with the new arguments, a denial never runs', async () => {
    startInTerminal('approve', ['--server', bridge.url, '--model', 'scripted:two', '--approve']);
    await waitForScreen('approve', /approve echo\? \[y\]es \/ \[n\]o \/ \[e\]dit: $/m);
    type('approve', 'e', 'Enter');
    await waitForScreen('approve', /arguments: \{"text":"alpha"\}$/m);
    // The arguments stand on the line, ready to change: clear it and type new ones.
    type('approve', 'C-u', '{"text":"ALPHA"}', 'Enter');
    await waitForScreen('approve', /(approve echo\?.*\n[\s\S]*){2}/);
    type('approve', 'n', 'Enter');
    await waitForScreen('approve', /reason \(optional\): $/m);
    type('approve', 'not beta', 'Enter');
    await waitForScreen('approve', /(approve echo\?.*\n[\s\S]*){3}/);
    type('approve', 'y', 'Enter');
    const done = await waitForScreen('approve', /\[exit \d+\]/);

    expect(done).toContain('✓ approved echo with {"text":"ALPHA"}');
    expect(done).toContain('✗ denied echo: not beta');
    expect(done).toMatch(/■ completed reward 1/);
    expect(done).toContain('[exit 0]');
    const events = await newestRunEvents();
    expect(events.filter((event) => event.event === 'tool.started').map((event) => event.arguments)).toEqual([
      { text: 'ALPHA' },
      { text: 'end', reward: 1, finished: true },
    ]);
  }, 60_000);

  it('--approve plays a whole arith episode with the offline model, in-process, each call approved by the person', async () => {
    startInTerminal('offline', ['--env', 'arith', '--index', '2', '--approve']);
    let approved = 0;
    for (;;) {
      const text = await waitForScreen('offline', /(\[e\]dit: $|\[exit \d+\])/m);
      if (/\[exit \d+\]/.test(text)) {
        expect(text).toMatch(/■ completed reward 1 /);
        expect(text).toContain('[exit 0]');
        expect(text.match(/✓ approved/g)?.length).toBe(approved);
        break;
      }
      type('offline', 'y', 'Enter');
      approved++;
      await waitForScreen('offline', new RegExp(`(✓ approved[\\s\\S]*){${approved}}`));
    }
    expect(approved).toBeGreaterThan(1);
  }, 60_000);

  it('--approve refuses edited arguments that are not a JSON object and asks again', async () => {
    startInTerminal('edit', ['--server', bridge.url, '--model', 'scripted:two', '--approve']);
    await waitForScreen('edit', /approve echo\?.*$/m);
    type('edit', 'e', 'Enter');
    await waitForScreen('edit', /arguments: \{"text":"alpha"\}$/m);
    type('edit', 'C-u', '[1, 2]', 'Enter');
    await waitForScreen('edit', /must be a JSON object[\s\S]*approve echo\?/);
    type('edit', 'C-c');
    const done = await waitForScreen('edit', /\[exit \d+\]/);
    expect(done).toContain('■ cancelled (client)');
    expect(done).toContain('[exit 130]');
  }, 60_000);

  it('--chat lets the person type follow-ups the model answers, and /exit ends the chat', async () => {
    startInTerminal('chat', ['--server', bridge.url, '--model', 'chat', '--chat']);
    await waitForScreen('chat', /^you> $/m);
    type('chat', 'Hello there.', 'Enter');
    await waitForScreen('chat', /You said: Hello there\. \[2 user messages\][\s\S]*^you> $/m);
    type('chat', 'And again.', 'Enter');
    await waitForScreen('chat', /You said: And again\. \[3 user messages\][\s\S]*^you> $/m);
    type('chat', '/exit', 'Enter');
    const done = await waitForScreen('chat', /\[exit \d+\]/);
    expect(done).toContain('you: Hello there.');
    expect(done).toContain('[exit 0]');
    await expectTypedChat();
  }, 60_000);

  it('--chat takes input piped all at once as typed input, line by line, each when the run asks for it', async () => {
    const child = spawn(process.execPath, runbridgeArgv(['run', '--server', bridge.url, '--model', 'chat', '--chat']), {
      env: { ...process.env, NO_COLOR: '1', RUNBRIDGE_API_KEYS: '' },
      stdio: 'pipe',
    });
    child.stdin.end('Hello there.\nAnd again.\n/exit\n');
    let stdout = '';
    child.stdout.setEncoding('utf8').on('data', (text: string) => (stdout += text));
    const [code] = (await once(child, 'exit')) as [number | null];
    expect(code).toBe(0);
    // Not echoed by a terminal, each answer is written after its prompt.
    expect(stdout).toContain('you> Hello there.\n');
    expect(stdout).toContain('you> And again.\n');
    await expectTypedChat();
  }, 60_000);
});
