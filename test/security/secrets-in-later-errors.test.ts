import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { LOCAL_OWNER } from '../../src/http/authenticate.js';
import { STREAM_FORMATS } from '../../src/http/formats/stream-formats.js';
import { defineEnvironment, defineTool, ToolFailure, taskList } from '../../src/ors/environment.js';
import { createOrsServer, type OrsServer } from '../../src/ors/server/create-ors-server.js';
import { foldEpisode } from '../../src/runs/episode-fold.js';
import { scriptedProvider } from '../support/scripted-model.js';
import { startTestBridge, type TestBridge } from '../support/start-test-bridge.js';

const TOKEN = `tok-${randomBytes(12).toString('hex')}`;
const PIN = 7;
const SECRETS = { token: TOKEN, pin: PIN };

interface LeakyState {
  secrets: Record<string, unknown>;
}

/**
 * An environment that quotes its secrets in every kind of error it can raise after `/create`: a tool
 * that refuses (`end` with `ok: false`), a tool that crashes (`event: error`), and, for a task that
 * asks for it, a prompt that fails (HTTP 500 with the text as `detail`).
 */
const leaky = defineEnvironment<{ broken_prompt: boolean }, LeakyState>({
  name: 'leaky',
  splits: [{ name: 'train', type: 'train' }],
  tasks: taskList({ train: [{ broken_prompt: false }, { broken_prompt: true }] }),
  taskSchema: z.object({ broken_prompt: z.boolean() }),
  tools: [
    defineTool<LeakyState, unknown>({
      name: 'refuse',
      description: 'Refuses, quoting the secrets.',
      input: null,
      run: (_input, { state }) => {
        throw new ToolFailure(`refused for token ${String(state.secrets.token)} and pin ${String(state.secrets.pin)}`);
      },
    }),
    defineTool<LeakyState, unknown>({
      name: 'crash',
      description: 'Crashes, quoting the secrets.',
      input: null,
      run: (_input, { state }) => {
        throw new Error(`crashed holding ${JSON.stringify(state.secrets)}`);
      },
    }),
  ],
  setup: ({ task, secrets }) => ({ secrets: { ...secrets, broken: task.broken_prompt } }),
  prompt: (state) => {
    if (state.secrets.broken) throw new Error(`no prompt for token ${String(state.secrets.token)}`);
    return [{ type: 'text', text: 'Call the tools.', detail: null }];
  },
});

/** Secrets an ORS server quotes back in any error of the episode never reach an output (docs/security.md). */
describe('secrets quoted in errors after /create', () => {
  let ors: OrsServer;
  let bridge: TestBridge;

  beforeAll(async () => {
    ors = createOrsServer({ environments: [leaky], logError: () => undefined });
    bridge = await startTestBridge(
      { ORS_URL: await ors.listen(), RUNBRIDGE_DEFAULT_ENV: 'leaky' },
      {
        providers: [
          scriptedProvider({
            both: [
              { toolCalls: [{ name: 'refuse', arguments: '{}' }] },
              { toolCalls: [{ name: 'crash', arguments: '{}' }] },
              { text: 'Done. Version 7 of the 7 tools, build 37b.' },
            ],
          }),
        ],
      },
    );
  });
  afterAll(async () => {
    await bridge.shutdown();
    await ors.close();
  });

  async function outputsOf(runId: string): Promise<string> {
    const texts: string[] = [];
    for (const format of Object.keys(STREAM_FORMATS)) {
      texts.push(await (await bridge.fetch(`/v1/runs/${runId}/events?format=${format}&agent_events=1`)).text());
    }
    texts.push(await (await bridge.fetch(`/v1/runs/${runId}`)).text());
    texts.push(JSON.stringify(foldEpisode((await bridge.registry.open(runId, LOCAL_OWNER)).log.entries)));
    return texts.join('\n');
  }

  it('are cut from tool errors and tool crashes, and a short one only where it stands alone', async () => {
    const runId = await bridge.startRun({ model: 'scripted:both', secrets: SECRETS });
    const events = await bridge.readEvents(runId);
    expect(events.at(-1)).toMatchObject({ event: 'run.completed' });
    const errors = events.flatMap((event) =>
      event.event === 'tool.completed' && event.error ? [event.error_message ?? ''] : [],
    );
    expect(errors).toEqual([
      'refused for token [redacted] and pin [redacted]',
      expect.stringMatching(/^crashed holding \{"token":"\[redacted\]","pin":\[redacted\],"broken":false\}$/),
    ]);
    const outputs = await outputsOf(runId);
    expect(outputs).not.toContain(TOKEN);
    // The model's text falls under the same rule as everything the run writes (a short secret is cut
    // where it stands alone) and a "7" inside a word or number is left alone.
    expect(outputs).toContain('Done. Version [redacted] of the [redacted] tools, build 37b.');
  });

  it('are cut from an HTTP error of a later endpoint that ends the run', async () => {
    const runId = await bridge.startRun({ model: 'scripted:both', secrets: SECRETS, task: { index: 1 } });
    const failed = (await bridge.readEvents(runId)).at(-1);
    expect(failed).toMatchObject({ event: 'run.failed', code: 'ors_server_error' });
    expect(failed?.event === 'run.failed' && failed.error).toContain('no prompt for token [redacted]');
    expect(await outputsOf(runId)).not.toContain(TOKEN);
  });
});
