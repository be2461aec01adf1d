import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { LOCAL_OWNER } from '../../src/http/authenticate.js';
import { STREAM_FORMATS } from '../../src/http/formats/stream-formats.js';
import { defineEnvironment, defineTool, taskList } from '../../src/ors/environment.js';
import { assertEventOrder } from '../../src/protocol/verify-event-order.js';
import { foldEpisode } from '../../src/runs/episode-fold.js';
import { recordingProvider, type Sent } from '../hitl/hitl-support.js';
import { startTestBridge, type TestBridge } from '../support/start-test-bridge.js';

/**
 * A run's secrets are cut out of everything the run publishes or stores (docs/security.md, "Secrets
 * are never echoed"), not only out of errors: an environment that echoes them in its prompt, its
 * tool outputs and their metadata streams `[redacted]` to every subscriber, stores it, and shows it
 * to the model. Values under 8 characters go only where they stand alone, as in errors.
 */

const TOKEN = 'sk-live-4f9a7c21e0b3d8';
const PIN = '4821';
/** A PIN standing alone (not touching a letter or digit), as the short-secret rule finds it. */
const LONE_PIN = /(?<![\p{L}\p{N}])4821(?![\p{L}\p{N}])/u;

interface LeakyState {
  secrets: Record<string, unknown>;
}

/** Tells whoever asks the secrets of its session: in the prompt, in tool output blocks and in their metadata. */
const leaky = defineEnvironment<{ n: number }, LeakyState>({
  name: 'leaky',
  splits: [{ name: 'train', type: 'train' }],
  tasks: taskList({ train: [{ n: 1 }] }),
  taskSchema: z.object({ n: z.number() }),
  setup: ({ secrets }) => ({ secrets }),
  prompt: ({ secrets }) => [
    { type: 'text', text: `Use the vault (it answers to ${String(secrets.token)}).`, detail: null },
  ],
  tools: [
    defineTool<LeakyState, Record<string, never>>({
      name: 'peek',
      description: 'Show the vault.',
      input: null,
      run: (_, { state }) => ({
        blocks: [
          {
            type: 'text',
            text: `token=${String(state.secrets.token)}; pin ${String(state.secrets.pin)}.`,
            detail: null,
          },
          { type: 'text', text: `Build ${String(state.secrets.pin)}7b is unrelated.`, detail: null },
        ],
        metadata: { echoed: state.secrets, id: String(state.secrets.token) },
      }),
    }),
    defineTool<LeakyState, Record<string, never>>({
      name: 'submit',
      description: 'Finish.',
      input: null,
      run: () => ({ blocks: [{ type: 'text', text: 'Done.', detail: null }], reward: 1, finished: true }),
    }),
  ],
});

describe('the secrets of a run, echoed by its environment', () => {
  let bridge: TestBridge;
  const sent: Sent = [];
  beforeAll(async () => {
    bridge = await startTestBridge(
      { RUNBRIDGE_DEFAULT_ENV: 'leaky', RUNBRIDGE_MODEL: 'scripted:peek' },
      {
        environments: [leaky],
        providers: [
          recordingProvider(
            {
              peek: [
                { text: 'Peeking.', toolCalls: [{ name: 'peek', arguments: '{}' }] },
                { toolCalls: [{ name: 'submit', arguments: '{}' }] },
              ],
            },
            sent,
          ),
        ],
      },
    );
  });
  afterAll(() => bridge.shutdown());

  it('are redacted in the events of every format, the stored entries and their details, and what the model is sent', async () => {
    const runId = await bridge.startRun({ secrets: { token: TOKEN, pin: PIN } });
    const events = await bridge.readEvents(runId);
    assertEventOrder(events);
    expect(events.at(-1)).toMatchObject({ event: 'run.completed', reward: 1 });
    const peeked = events.find((event) => event.event === 'tool.completed' && event.tool === 'peek');
    expect(peeked).toMatchObject({ output: expect.stringContaining('token=[redacted]; pin [redacted].') });
    const started = events.find((event) => event.event === 'tool.started' && event.tool === 'peek');
    expect(started?.event === 'tool.started' && started.tool_call_id).toBe(
      peeked?.event === 'tool.completed' && peeked.tool_call_id,
    );

    const run = await bridge.registry.open(runId, LOCAL_OWNER);
    const outputs: Record<string, string> = {
      'stored entries': JSON.stringify(run.log.entries),
      record: JSON.stringify(foldEpisode(run.log.entries)),
      'model calls': JSON.stringify(sent),
      snapshot: await (await bridge.fetch(`/v1/runs/${runId}`)).text(),
    };
    for (const format of Object.keys(STREAM_FORMATS)) {
      outputs[format] = await (await bridge.fetch(`/v1/runs/${runId}/events?format=${format}&agent_events=1`)).text();
    }
    for (const [where, text] of Object.entries(outputs)) {
      expect(text, where).not.toContain(TOKEN);
      expect(LONE_PIN.test(text), `${where} holds the PIN standing alone`).toBe(false);
    }
    // The detail kept the whole result and its metadata, redacted; a short value inside a word stays.
    const detail = run.log.entries.find((entry) => entry.event.event === 'tool.completed' && entry.detail?.tool)?.detail
      ?.tool;
    expect(detail?.metadata).toEqual({ echoed: { token: '[redacted]', pin: '[redacted]' }, id: '[redacted]' });
    expect(JSON.stringify(detail?.content)).toContain('Build 48217b is unrelated.');
    expect(JSON.stringify(sent[0])).toContain('it answers to [redacted]');
  });

  it('leave a run without secrets as its environment wrote it', async () => {
    const runId = await bridge.startRun({});
    const events = await bridge.readEvents(runId);
    expect(events.find((event) => event.event === 'tool.completed' && event.tool === 'peek')).toMatchObject({
      output: expect.stringContaining('token=undefined; pin undefined.'),
    });
  });
});
