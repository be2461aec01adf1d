import {
  AbstractChat,
  type ChatState,
  type ChatStatus,
  type ChatTransport,
  DefaultChatTransport,
  readUIMessageStream,
  type UIMessage,
  validateUIMessages,
} from 'ai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { builtinEnvironments } from '../../adapters/environments/builtin-environments.js';
import { ModelError } from '../../src/errors.js';
import type { RunEvent } from '../../src/protocol/run-events.js';
import { eventually } from '../support/eventually.js';
import { probeEnvironment } from '../support/probe-environment.js';
import { scriptedProvider, singleModelProvider } from '../support/scripted-model.js';
import { startTestBridge, type TestBridge } from '../support/start-test-bridge.js';
import { createTestEnvironment, type TestProbe } from '../support/test-environment.js';
import { summaryOfEvents, summaryOfMessage } from './ui-message-summary.js';

/**
 * A chat of the `ai` package with a plain state, as `@ai-sdk/react`'s `Chat` is one with React
 * state: the package's own request, stream reading and message building, minus a UI framework.
 */
class PlainChat extends AbstractChat<UIMessage> {
  constructor(transport: ChatTransport<UIMessage>, id: string) {
    let messages: UIMessage[] = [];
    let status: ChatStatus = 'ready';
    let error: Error | undefined;
    const state: ChatState<UIMessage> = {
      get status() {
        return status;
      },
      set status(value) {
        status = value;
      },
      get error() {
        return error;
      },
      set error(value) {
        error = value;
      },
      get messages() {
        return messages;
      },
      set messages(value) {
        messages = value;
      },
      pushMessage: (message) => {
        messages = [...messages, message];
      },
      popMessage: () => {
        messages = messages.slice(0, -1);
      },
      replaceMessage: (index, message) => {
        messages = messages.map((current, at) => (at === index ? message : current));
      },
      snapshot: (thing) => structuredClone(thing),
    };
    super({ id, transport, state });
  }
}

/** A model that starts its answer and a call, then fails: the stream breaks in the middle of both. */
const failsMidwayProvider = singleModelProvider('fails-midway', async function* () {
  yield { type: 'text-delta', delta: 'Let me th' };
  yield { type: 'tool-call-delta', id: 'call_x', name: 'echo', delta: '{"text":' };
  throw new ModelError('The model stream broke off.', { code: 'model_stream_interrupted' });
});

describe('the ai package reading format=ai-sdk', () => {
  let bridge: TestBridge;
  let probe: TestProbe;

  beforeAll(async () => {
    const test = createTestEnvironment('testenv');
    probe = test.probe;
    bridge = await startTestBridge(
      { RUNBRIDGE_TOOL_PROGRESS_SECONDS: '0.02' },
      {
        environments: [...builtinEnvironments, probeEnvironment, test.environment],
        providers: [
          scriptedProvider({
            failing: [
              {
                text: 'Trying two tools. ',
                toolCalls: [
                  { name: 'fail', arguments: '{}' },
                  { name: 'echo', arguments: '{"text":"still here"}' },
                ],
              },
              { text: 'One failed.' },
            ],
            slow: [{ toolCalls: [{ name: 'sleep', arguments: '{"ms":120}' }] }, { text: 'Slept.' }],
            held: [{ text: 'Waiting. ', toolCalls: [{ name: 'wait', arguments: '{"key":"held"}' }] }],
            hang: [{ hang: true }],
          }),
          failsMidwayProvider,
        ],
      },
    );
  });
  afterAll(() => bridge.shutdown());

  /** The package's default chat transport, pointed at the run's ai-sdk stream for `resumeStream`. */
  function transportFor(bridgeUrl: string, eventsPath: (runId: string) => string) {
    return new DefaultChatTransport<UIMessage>({
      api: `${bridgeUrl}/v1/runs`,
      prepareReconnectToStreamRequest: ({ id }) => ({ api: `${bridgeUrl}${eventsPath(id)}` }),
    });
  }

  /** Reads the run's stream with the transport's parser (which checks every chunk) and `readUIMessageStream`. */
  async function readRun(runId: string): Promise<{ states: UIMessage[]; errors: string[] }> {
    const transport = transportFor(bridge.url, (id) => `/v1/runs/${id}/events?format=ai-sdk`);
    const stream = await transport.reconnectToStream({ chatId: runId });
    const states: UIMessage[] = [];
    const errors: string[] = [];
    for await (const state of readUIMessageStream({
      stream: stream!,
      onError: (error) => errors.push(error instanceof Error ? error.message : String(error)),
    }))
      states.push(state);
    return { states, errors };
  }

  async function finishedRun(body: Record<string, unknown>): Promise<{ runId: string; events: RunEvent[] }> {
    const runId = await bridge.startRun(body);
    return { runId, events: await bridge.readEvents(runId) };
  }

  it.each([
    ['arith', { split: 'train', index: 2 }],
    ['workspace', { split: 'train', index: 0 }],
  ])(
    "turns a whole %s episode into one UI message whose parts are the run's text, reasoning and tool calls",
    async (env, task) => {
      const { runId, events } = await finishedRun({ env, task });
      const { states, errors } = await readRun(runId);
      expect(errors).toEqual([]);
      const message = states.at(-1)!;
      expect(summaryOfMessage(message)).toEqual(summaryOfEvents(events));
      expect(summaryOfEvents(events).tools.length).toBeGreaterThan(1);
      // The package's own validator accepts the message as a UI message.
      await expect(validateUIMessages({ messages: [message] })).resolves.toHaveLength(1);
      // While the stream was read, each call showed up forming, with its input streaming in.
      expect(
        states.some((state) =>
          state.parts.some((part) => part.type === 'dynamic-tool' && part.state === 'input-streaming'),
        ),
      ).toBe(true);
    },
  );

  it('shows a tool that failed as output-error with its message, next to one that worked', async () => {
    const { runId, events } = await finishedRun({ env: 'probe', model: 'scripted:failing' });
    const { states, errors } = await readRun(runId);
    expect(errors).toEqual([]);
    const summary = summaryOfMessage(states.at(-1)!);
    expect(summary).toEqual(summaryOfEvents(events));
    expect(summary.tools.map((tool) => tool.state)).toEqual(['output-error', 'output-available']);
    expect(summary.tools[0]!.errorText).toContain('this tool always fails');
  });

  it('shows a slow call as running, with its elapsed time growing, until its output comes', async () => {
    const { runId, events } = await finishedRun({ env: 'probe', model: 'scripted:slow' });
    expect(events.filter((event) => event.event === 'tool.progress').length).toBeGreaterThan(0);
    const { states, errors } = await readRun(runId);
    expect(errors).toEqual([]);
    const elapsed = states.flatMap((state) =>
      state.parts.flatMap((part) =>
        part.type === 'data-runbridge-tool' && (part.data as { status: string }).status === 'running'
          ? [(part.data as { elapsed: number }).elapsed]
          : [],
      ),
    );
    expect(elapsed[0]).toBe(0);
    expect(Math.max(...elapsed)).toBeGreaterThan(0);
    expect(states.at(-1)!.parts.find((part) => part.type === 'data-runbridge-tool')).toMatchObject({
      data: { status: 'completed', tool: 'sleep' },
    });
    expect(summaryOfMessage(states.at(-1)!)).toEqual(summaryOfEvents(events));
  });

  it('reports a failed run as an error, with the text and the forming call it broke off in ended', async () => {
    const { runId } = await finishedRun({ env: 'testenv', model: 'fails-midway' });
    const { states, errors } = await readRun(runId);
    expect(errors).toEqual(['The model stream broke off.']);
    const message = states.at(-1)!;
    expect(message.parts.find((part) => part.type === 'text')).toMatchObject({ text: 'Let me th', state: 'done' });
    expect(message.parts.find((part) => part.type === 'dynamic-tool')).toMatchObject({
      toolCallId: 'call_x',
      state: 'output-error',
      errorText: 'Not run: the run failed before the call was sent.',
    });
    // The Chat of the package stops at the error and says so.
    const chat = new PlainChat(
      transportFor(bridge.url, (id) => `/v1/runs/${id}/events?format=ai-sdk`),
      runId,
    );
    await chat.resumeStream();
    expect(chat.status).toBe('error');
    expect(chat.error?.message).toBe('The model stream broke off.');
  });

  it('reads a cancelled run to its abort, with the run marked cancelled', async () => {
    const runId = await bridge.startRun({ env: 'arith', model: 'scripted:hang' });
    await bridge.fetch(`/v1/runs/${runId}/cancel`, { method: 'POST', headers: { 'Content-Type': 'application/json' } });
    await bridge.readEvents(runId);
    const { states, errors } = await readRun(runId);
    expect(errors).toEqual([]);
    expect(states.at(-1)!.parts.find((part) => part.type === 'data-runbridge-run')).toMatchObject({
      data: { status: 'cancelled', reason: 'client' },
    });
  });

  it('rebuilds the message in place when the Chat resumes a live run: the stream replays from the start', async () => {
    const runId = await bridge.startRun({ env: 'testenv', model: 'scripted:held' });
    const chat = new PlainChat(
      transportFor(bridge.url, (id) => `/v1/runs/${id}/events?format=ai-sdk`),
      runId,
    );
    const first = chat.resumeStream();
    await probe.started('held');
    // The page goes away mid-run (the reader stops), then comes back and resumes.
    await eventually(
      () => chat.messages.at(-1)?.parts.some((part) => part.type === 'dynamic-tool'),
      'the tool part in the chat',
    );
    chat.stop();
    await first;
    const resumed = chat.resumeStream();
    await eventually(() => chat.status === 'streaming', 'the chat streaming');
    probe.release('held', 'released');
    await resumed;
    const events = await bridge.readEvents(runId);
    expect(chat.messages).toHaveLength(1);
    expect(summaryOfMessage(chat.messages[0]!)).toEqual(summaryOfEvents(events));
    expect(chat.status).toBe('ready');
  });

  it('reads a run on a bridge with keys through a stream token alone, and is refused without one', async () => {
    const keyed = await startTestBridge(
      { RUNBRIDGE_API_KEYS: 'chat-key-0123456789' },
      { apiKey: 'chat-key-0123456789' },
    );
    try {
      const runId = await keyed.startRun({ env: 'arith' });
      const events = await keyed.readEvents(runId);
      const minted = await keyed.fetch(`/v1/runs/${runId}/stream-token`, { method: 'POST' });
      const { events_url: eventsUrl } = (await minted.json()) as { events_url: string };
      const withToken = new PlainChat(
        transportFor(keyed.url, () => `${eventsUrl}&format=ai-sdk`),
        runId,
      );
      await withToken.resumeStream();
      expect(withToken.status).toBe('ready');
      expect(summaryOfMessage(withToken.messages[0]!)).toEqual(summaryOfEvents(events));

      const without = new PlainChat(
        transportFor(keyed.url, (id) => `/v1/runs/${id}/events?format=ai-sdk`),
        runId,
      );
      await without.resumeStream();
      expect(without.status).toBe('error');
      expect(without.error?.message).toContain('unauthorized');
    } finally {
      await keyed.shutdown();
    }
  });
});
