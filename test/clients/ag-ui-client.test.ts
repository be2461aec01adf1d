import { type AgentSubscriber, HttpAgent, type Message } from '@ag-ui/client';
import { EventSchema } from '@ag-ui/core/schemas';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { builtinEnvironments } from '../../adapters/environments/builtin-environments.js';
import { ModelError } from '../../src/errors.js';
import { readSseEvents } from '../../src/sse/read-sse-events.js';
import { probeEnvironment } from '../support/probe-environment.js';
import { scriptedProvider, singleModelProvider } from '../support/scripted-model.js';
import { startTestBridge, type TestBridge } from '../support/start-test-bridge.js';

/**
 * AG-UI's own HTTP agent, pointed at a run's `format=ag-ui` stream. It POSTs a RunAgentInput by
 * default; this subclass overrides `requestInit` (the hook AG-UI offers for it) to GET the stream of
 * a run that already exists. Everything after the request — SSE parsing, schema enforcement, the
 * order verifier, applying events to messages — is the client's own.
 */
class RunEventsAgent extends HttpAgent {
  protected override requestInit(): RequestInit {
    return {
      method: 'GET',
      headers: { ...this.headers, Accept: 'text/event-stream' },
      signal: this.abortController.signal,
    };
  }
}

/** A model that starts its answer and a call, then fails: the stream breaks in the middle of both. */
const breaksInCallProvider = singleModelProvider('breaks-in-call', async function* () {
  yield { type: 'text-delta', delta: 'Let me add. ' };
  yield { type: 'tool-call-delta', id: 'call_x', name: 'calculator', delta: '' };
  yield { type: 'tool-call-delta', id: 'call_x', name: 'calculator', delta: '{"expression":' };
  throw new ModelError('The model stream broke off.', { code: 'model_stream_interrupted' });
});

/** A model that starts its answer, then fails: the stream breaks in the middle of a text message. */
const failsMidwayProvider = singleModelProvider('fails-midway', async function* () {
  yield { type: 'text-delta', delta: 'Let me th' };
  throw new ModelError('The model stream broke off.', { code: 'model_stream_interrupted' });
});

describe('AG-UI clients', () => {
  let bridge: TestBridge;

  beforeAll(async () => {
    // A short progress period, so the probe's 100 ms sleep reports tool.progress.
    bridge = await startTestBridge(
      { RUNBRIDGE_TOOL_PROGRESS_SECONDS: '0.02' },
      {
        environments: [...builtinEnvironments, probeEnvironment],
        providers: [
          scriptedProvider({
            story: [
              {
                reasoning: 'Add first.',
                text: 'Let me add. ',
                toolCalls: [{ name: 'calculator', arguments: '{"expression":"2 + 2"}' }],
              },
              { text: 'It is 4.' },
            ],
            hang: [{ hang: true }],
            slow: [{ toolCalls: [{ name: 'sleep', arguments: '{"ms":100}' }] }, { text: 'Slept.' }],
          }),
          failsMidwayProvider,
          breaksInCallProvider,
        ],
      },
    );
  });
  afterAll(() => bridge.shutdown());

  async function finishedRun(body: Record<string, unknown>, cancel = false): Promise<string> {
    const runId = await bridge.startRun(body);
    if (cancel)
      await bridge.fetch(`/v1/runs/${runId}/cancel`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
      });
    await bridge.readEvents(runId);
    return runId;
  }

  /** Plays the run's stream through AG-UI's HttpAgent; returns what it resolved with and every event type it applied. */
  async function play(runId: string): Promise<{
    result: unknown;
    messages: Message[];
    types: string[];
    custom: Array<{ name: string; value: unknown }>;
    outcome?: string;
    error?: { message: string; code?: string };
  }> {
    const agent = new RunEventsAgent({ url: `${bridge.url}/v1/runs/${runId}/events?format=ag-ui` });
    const seen: {
      types: string[];
      custom: Array<{ name: string; value: unknown }>;
      outcome?: string;
      error?: { message: string; code?: string };
    } = { types: [], custom: [] };
    const subscriber: AgentSubscriber = {
      onCustomEvent: ({ event }) => {
        seen.custom.push({ name: event.name, value: event.value });
      },
      onEvent: ({ event }) => {
        seen.types.push(event.type);
      },
      onRunFinishedEvent: (params) => {
        seen.outcome = params.outcome;
      },
      onRunErrorEvent: ({ event }) => {
        seen.error = { message: event.message, ...(event.code === undefined ? {} : { code: event.code }) };
      },
    };
    const { result } = await agent.runAgent({}, subscriber);
    return { result, messages: agent.messages, ...seen };
  }

  it("@ag-ui/core's schemas accept every frame of format=ag-ui, for runs that complete, fail and are cancelled", async () => {
    const runs = [
      await finishedRun({ env: 'arith' }),
      await finishedRun({ env: 'workspace' }),
      await finishedRun({ env: 'arith', model: 'scripted:story' }),
      await finishedRun({ env: 'arith', model: 'fails-midway' }),
      await finishedRun({ env: 'arith', model: 'scripted:hang' }, true),
      await finishedRun({ env: 'probe', model: 'scripted:slow' }),
      await finishedRun({ env: 'arith', model: 'breaks-in-call' }),
    ];
    const types = new Set<string>();
    for (const runId of runs) {
      const response = await bridge.fetch(`/v1/runs/${runId}/events?format=ag-ui`);
      for await (const frame of readSseEvents(response.body!)) {
        const event = EventSchema.parse(JSON.parse(frame.data));
        types.add(event.type);
      }
    }
    expect([...types].sort()).toEqual([
      'CUSTOM',
      'REASONING_END',
      'REASONING_MESSAGE_CONTENT',
      'REASONING_MESSAGE_END',
      'REASONING_MESSAGE_START',
      'REASONING_START',
      'RUN_ERROR',
      'RUN_FINISHED',
      'RUN_STARTED',
      'TEXT_MESSAGE_CONTENT',
      'TEXT_MESSAGE_END',
      'TEXT_MESSAGE_START',
      'TOOL_CALL_ARGS',
      'TOOL_CALL_END',
      'TOOL_CALL_RESULT',
      'TOOL_CALL_START',
    ]);
  });

  it.each(['arith', 'workspace'])(
    'HttpAgent plays a whole %s episode to RUN_FINISHED with the episode as result',
    async (env) => {
      const runId = await finishedRun({ env });
      const completed = (await bridge.readEvents(runId)).at(-1)!;
      const played = await play(runId);
      expect(played.types[0]).toBe('RUN_STARTED');
      expect(played.types.at(-1)).toBe('RUN_FINISHED');
      expect(played.outcome).toBe('success');
      expect(played.result).toMatchObject({
        output: completed.event === 'run.completed' ? completed.output : null,
        reward: 1,
        finished: true,
      });
    },
  );

  it('HttpAgent rebuilds the conversation: reasoning, the assistant text and tool call of each turn, and the tool result', async () => {
    const runId = await finishedRun({ env: 'arith', model: 'scripted:story' });
    const { messages } = await play(runId);
    expect(messages.map((message) => [message.role, message.id])).toEqual([
      ['reasoning', `${runId}:turn-1:reasoning`],
      ['assistant', `${runId}:turn-1`],
      ['tool', `${runId}:call_0_0:result`],
      ['assistant', `${runId}:turn-2`],
    ]);
    expect(messages[0]).toMatchObject({ content: 'Add first.' });
    expect(messages[1]).toMatchObject({
      content: 'Let me add. ',
      toolCalls: [
        { id: 'call_0_0', type: 'function', function: { name: 'calculator', arguments: '{"expression":"2 + 2"}' } },
      ],
    });
    expect(messages[2]).toMatchObject({ toolCallId: 'call_0_0', content: '2 + 2 = 4' });
    expect(messages[3]).toMatchObject({ content: 'It is 4.' });
  });

  it('HttpAgent hears a failed run as RUN_ERROR with its message and code, after the open text is closed', async () => {
    const runId = await finishedRun({ env: 'arith', model: 'fails-midway' });
    const played = await play(runId);
    expect(played.types).toEqual([
      'RUN_STARTED',
      'TEXT_MESSAGE_START',
      'TEXT_MESSAGE_CONTENT',
      'TEXT_MESSAGE_END',
      'RUN_ERROR',
    ]);
    expect(played.error).toEqual({ message: 'The model stream broke off.', code: 'model_stream_interrupted' });
    expect(played.messages).toEqual([{ id: `${runId}:turn-1`, role: 'assistant', content: 'Let me th' }]);
  });

  it("HttpAgent rebuilds each call of an offline run from its streamed pieces, equal to tool.started's arguments", async () => {
    const runId = await finishedRun({ env: 'arith', task: { split: 'train', index: 2 } });
    const events = await bridge.readEvents(runId);
    const played = await play(runId);
    const pieces = played.types.filter((type) => type === 'TOOL_CALL_ARGS').length;
    const started = events.flatMap((event) => (event.event === 'tool.started' ? [event] : []));
    expect(pieces).toBeGreaterThan(started.length);
    const calls = played.messages.flatMap((message) => (message.role === 'assistant' ? (message.toolCalls ?? []) : []));
    expect(calls.map((call) => [call.id, call.function.name, JSON.parse(call.function.arguments)])).toEqual(
      started.map((event) => [event.tool_call_id, event.tool, event.arguments]),
    );
  });

  it('HttpAgent hears tool.progress as CUSTOM events while a slow call runs', async () => {
    const played = await play(await finishedRun({ env: 'probe', model: 'scripted:slow' }));
    expect(played.custom.length).toBeGreaterThan(0);
    expect(played.custom[0]).toMatchObject({
      name: 'tool.progress',
      value: { event: 'tool.progress', tool: 'sleep', tool_call_id: 'call_0_0' },
    });
    expect(played.outcome).toBe('success');
  });

  it('HttpAgent hears a run that broke off mid-call as RUN_ERROR, after the forming call and the text are ended', async () => {
    const played = await play(await finishedRun({ env: 'arith', model: 'breaks-in-call' }));
    expect(played.types).toEqual([
      'RUN_STARTED',
      'TEXT_MESSAGE_START',
      'TEXT_MESSAGE_CONTENT',
      'TOOL_CALL_START',
      'TOOL_CALL_ARGS',
      'TOOL_CALL_END',
      'TEXT_MESSAGE_END',
      'RUN_ERROR',
    ]);
    expect(played.error).toEqual({ message: 'The model stream broke off.', code: 'model_stream_interrupted' });
  });

  it('HttpAgent hears a cancelled run as RUN_FINISHED with the outcome "cancelled"', async () => {
    const played = await play(await finishedRun({ env: 'arith', model: 'scripted:hang' }, true));
    expect(played.types).toEqual(['RUN_STARTED', 'RUN_FINISHED']);
    expect(played.outcome).toBe('cancelled');
  });
});
