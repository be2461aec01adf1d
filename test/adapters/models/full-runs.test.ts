import { readFileSync } from 'node:fs';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createAnthropicProvider } from '../../../adapters/models/anthropic/anthropic-provider.js';
import { createOpenAiChatProvider } from '../../../adapters/models/openai-chat/openai-chat-provider.js';
import { createOpenAiResponsesProvider } from '../../../adapters/models/openai-responses/openai-responses-provider.js';
import type { ModelProvider } from '../../../src/models/model.js';
import type { RunEvent, RunEventOf, RunEventType, Usage } from '../../../src/protocol/run-events.js';
import { assertEventOrder } from '../../../src/protocol/verify-event-order.js';
import { type FakeVendorServer, sseFrames, startFakeVendorServer } from '../../support/fake-vendor-server.js';
import { startTestBridge, type TestBridge } from '../../support/start-test-bridge.js';

/**
 * Whole runs through each vendor adapter: the bridge plays a built-in `arith` episode with the real
 * SDK talking to a loopback fake that replays hand-written streams in the vendor's wire format
 * (`test/fixtures/<vendor>/arith-*.sse`). Turn 1 calls `calculator` (or calls it with broken JSON),
 * turn 2 writes a little text and calls `submit` with 42, which the task spec makes the right answer.
 */

const TASK = { spec: { question: 'What is 17 + 25?', answer: 42 } };
const CALCULATOR_ARGUMENTS = '{"expression":"17 + 25"}';
const SUBMIT_TEXT = '17 + 25 = 42, so the answer is 42.';
const MAX_RETRIES = 1;
// The SDKs honour this header, so their retries do not back off for seconds.
const FAST_RETRY = { 'retry-after-ms': '1' };

/** What one turn-1 fixture holds, as far as the test checks it. */
interface TurnOneFixture {
  fixture: string;
  /** The tool call id the vendor gave the call. */
  callId: string;
  /** The vendor's output-item id of the call (Responses only). */
  itemId?: string;
  usage: Usage;
}

/** The turn-1 part of the second request, as the adapter should send it back. */
interface SentBack {
  turn: TurnOneFixture;
  /** The arguments as they go back: the model's own, or `{}` for arguments that were not JSON. */
  arguments: string;
  /** The tool result text. */
  output: string;
  isError: boolean;
}

interface VendorCase {
  name: string;
  /** `RUNBRIDGE_MODEL`. */
  model: string;
  /** The fake's route the SDK posts to. */
  route: string;
  provider(vendorUrl: string): ModelProvider;
  calculator: TurnOneFixture;
  invalid: TurnOneFixture;
  submit: { fixture: string; usage: Usage };
  /** The reasoning text turn 1 carries, when the vendor streams any. */
  reasoning?: string;
  /** Frames of the calculator fixture to send before the cut: the call has begun, its arguments have not ended. */
  cutAfterFrames: number;
  unauthorized: unknown;
  serverError: unknown;
  /** The messages or input items of the second request after the prompt. */
  tail(secondBody: unknown): unknown;
  /** What {@link VendorCase.tail} should be. */
  expectedTail(sentBack: SentBack): unknown;
}

const usage = (input: number, output: number): Usage => ({
  input_tokens: input,
  output_tokens: output,
  total_tokens: input + output,
});
const sum = (a: Usage, b: Usage): Usage => usage(a.input_tokens + b.input_tokens, a.output_tokens + b.output_tokens);
const openAiError = (message: string, type: string, code: string | null) => ({
  error: { message, type, param: null, code },
});
const anthropicError = (type: string, message: string) => ({ type: 'error', error: { type, message } });
const OPENAI_UNAUTHORIZED = openAiError(
  'Incorrect API key provided: test-key. You can find your API key at https://platform.openai.com/account/api-keys.',
  'invalid_request_error',
  'invalid_api_key',
);
const OPENAI_SERVER_ERROR = openAiError(
  'The server had an error while processing your request. Sorry about that!',
  'server_error',
  null,
);
const field = (key: string) => (body: unknown) => ((body as Record<string, unknown[]>)[key] ?? []).slice(1);

const ANTHROPIC_REASONING = 'The question asks for 17 + 25. I should use the calculator before submitting.';
const ANTHROPIC_SIGNATURES: Record<string, string> = {
  'anthropic/arith-calculator.sse':
    'EqMBCkgIBxABGAIqQNm3kQ2f1uXwzV8sYb0cT4eH6rJ9aL2pK5oN7iM3dG1hF8vB0xC4zQ6wE2tR9yU5sA1lP7kD3jH8gZ0nO4cX9vYWIMaGVsbG8gd29ybGQ=',
  'anthropic/arith-invalid-arguments.sse':
    'EqMBCkgIBxABGAIqQKx8vN2mB5cT1zR7qL4wJ9hF3dS6gP0aY2uE8iO5kX1nM7bV4cZ9rW3tQ6yH0jU2lI8oA5sD1fG7hK3pAMaGVsbG8gd29ybGQ=',
};
const RESPONSES_REASONING =
  '**Using the calculator**\n\nThe user asks for 17 + 25; I will compute it with the calculator tool.';
const RESPONSES_REASONING_ITEMS: Record<string, string> = {
  'openai-responses/arith-calculator.sse': 'rs_68b2d4e7a2c48193b5d7f9a1c3e5a7b9',
  'openai-responses/arith-invalid-arguments.sse': 'rs_68b2d4eaa8c28193d3f5a7c9e1b3d5f7',
};

const VENDORS: VendorCase[] = [
  {
    name: 'openai (Chat Completions)',
    model: 'openai:gpt-4.1-mini',
    route: 'POST /v1/chat/completions',
    provider: (url) => createOpenAiChatProvider({ apiKey: 'test-key', baseUrl: `${url}/v1`, maxRetries: MAX_RETRIES }),
    calculator: {
      fixture: 'openai-chat/arith-calculator.sse',
      callId: 'call_R4tY8uI2oP6aS1dF5gH9jK3l',
      usage: usage(163, 22),
    },
    invalid: {
      fixture: 'openai-chat/arith-invalid-arguments.sse',
      callId: 'call_P0oI9uY8tR7eW6qA5sD4fG3h',
      usage: usage(163, 19),
    },
    submit: { fixture: 'openai-chat/arith-submit.sse', usage: usage(214, 27) },
    cutAfterFrames: 4,
    unauthorized: OPENAI_UNAUTHORIZED,
    serverError: OPENAI_SERVER_ERROR,
    tail: field('messages'),
    expectedTail: ({ turn, arguments: args, output }) => [
      {
        role: 'assistant',
        content: null,
        tool_calls: [{ id: turn.callId, type: 'function', function: { name: 'calculator', arguments: args } }],
      },
      { role: 'tool', tool_call_id: turn.callId, content: output },
    ],
  },
  {
    name: 'openai-responses',
    model: 'openai-responses:gpt-5-mini',
    route: 'POST /v1/responses',
    provider: (url) =>
      createOpenAiResponsesProvider({ apiKey: 'test-key', baseUrl: `${url}/v1`, maxRetries: MAX_RETRIES }),
    calculator: {
      fixture: 'openai-responses/arith-calculator.sse',
      callId: 'call_Vb5nM1qW8eR4tY7uI0oP3aSd',
      itemId: 'fc_68b2d4e8c4e68193a7c9e1b3d5f7a9c1',
      usage: usage(148, 96),
    },
    invalid: {
      fixture: 'openai-responses/arith-invalid-arguments.sse',
      callId: 'call_Tz3xC7vB1nM5qW9eR2tY6uIo',
      itemId: 'fc_68b2d4ebcae48193e5a7c9e1b3d5f7a9',
      usage: usage(148, 90),
    },
    submit: { fixture: 'openai-responses/arith-submit.sse', usage: usage(290, 25) },
    reasoning: RESPONSES_REASONING,
    cutAfterFrames: 13,
    unauthorized: OPENAI_UNAUTHORIZED,
    serverError: OPENAI_SERVER_ERROR,
    tail: field('input'),
    // The reasoning item goes back by id (the response was stored), followed by the call it led to, with its item id.
    expectedTail: ({ turn, arguments: args, output }) => [
      {
        type: 'reasoning',
        id: RESPONSES_REASONING_ITEMS[turn.fixture],
        summary: [{ type: 'summary_text', text: RESPONSES_REASONING }],
      },
      { type: 'function_call', id: turn.itemId, call_id: turn.callId, name: 'calculator', arguments: args },
      { type: 'function_call_output', call_id: turn.callId, output },
    ],
  },
  {
    name: 'anthropic',
    model: 'anthropic:claude-sonnet-5-5',
    route: 'POST /v1/messages',
    provider: (url) => createAnthropicProvider({ apiKey: 'test-key', baseUrl: url, maxRetries: MAX_RETRIES }),
    calculator: {
      fixture: 'anthropic/arith-calculator.sse',
      callId: 'toolu_01Kc7Qm4Vx2Rt9Lp3Zs8Nw5B',
      usage: usage(612, 71),
    },
    invalid: {
      fixture: 'anthropic/arith-invalid-arguments.sse',
      callId: 'toolu_01Bq5Wn8Mx3Kd7Lz2Vc6Rt9J',
      usage: usage(612, 66),
    },
    // Input counts the cache reads too: 109 + 640.
    submit: { fixture: 'anthropic/arith-submit.sse', usage: usage(749, 38) },
    reasoning: ANTHROPIC_REASONING,
    cutAfterFrames: 11,
    unauthorized: anthropicError('authentication_error', 'invalid x-api-key'),
    serverError: anthropicError('api_error', 'Internal server error'),
    tail: field('messages'),
    // The thinking block goes back first, unmodified, with its signature.
    expectedTail: ({ turn, arguments: args, output, isError }) => [
      {
        role: 'assistant',
        content: [
          { type: 'thinking', thinking: ANTHROPIC_REASONING, signature: ANTHROPIC_SIGNATURES[turn.fixture] },
          { type: 'tool_use', id: turn.callId, name: 'calculator', input: JSON.parse(args) as unknown },
        ],
      },
      {
        role: 'user',
        content: [
          { type: 'tool_result', tool_use_id: turn.callId, content: output, ...(isError ? { is_error: true } : {}) },
        ],
      },
    ],
  },
];

function only<T extends RunEventType>(events: readonly RunEvent[], type: T, turn?: number): Array<RunEventOf<T>> {
  return events.filter(
    (event): event is RunEventOf<T> =>
      event.event === type && (turn === undefined || ('turn' in event && event.turn === turn)),
  );
}

/** The event types in order, with runs of the same type collapsed to one. */
function shape(events: readonly RunEvent[]): RunEventType[] {
  return events.map((event) => event.event).filter((type, index, types) => type !== types[index - 1]);
}

/** The bytes of a fixture's first `count` frames, as the fake sends them before a cut. */
function framesSent(fixture: string, count: number): string {
  return sseFrames(readFileSync(new URL(`../../fixtures/${fixture}`, import.meta.url), 'utf8'))
    .slice(0, count)
    .join('');
}

const joined = (events: ReadonlyArray<{ delta: string }>): string => events.map((event) => event.delta).join('');

describe.each(VENDORS)('a full arith run through the $name adapter', (vendorCase) => {
  let vendor: FakeVendorServer;
  let bridge: TestBridge;

  beforeEach(async () => {
    vendor = await startFakeVendorServer();
    bridge = await startTestBridge(
      { RUNBRIDGE_MODEL: vendorCase.model },
      { providers: [vendorCase.provider(vendor.url)] },
    );
  });

  afterEach(async () => {
    await bridge.shutdown();
    await vendor.close();
  });

  async function play(): Promise<RunEvent[]> {
    const runId = await bridge.startRun({ env: 'arith', task: TASK });
    const events = await bridge.readEvents(runId);
    assertEventOrder(events);
    expect(events[0]).toMatchObject({ event: 'run.started', env: 'arith', task: TASK, model: vendorCase.model });
    // The terminal event is written after the session is closed.
    expect(bridge.orsServer!.activeSessionIds()).toEqual([]);
    return events;
  }

  /** Checks turn 2 (text, then submit 42) and the run's end; `turnOne` is the fixture turn 1 replayed. */
  function expectSubmittedAfter(events: RunEvent[], turnOne: TurnOneFixture): void {
    expect(joined(only(events, 'message.delta', 2))).toBe(SUBMIT_TEXT);
    expect(only(events, 'turn.completed')).toMatchObject([
      { turn: 1, finish_reason: 'tool_calls', usage: turnOne.usage },
      { turn: 2, finish_reason: 'tool_calls', usage: vendorCase.submit.usage },
    ]);
    expect(only(events, 'tool.started', 2)).toMatchObject([
      { tool: 'submit', arguments: { answer: 42 }, call_index: 1 },
    ]);
    expect(only(events, 'tool.completed', 2)).toMatchObject([
      { tool: 'submit', error: false, reward: 1, finished: true },
    ]);
    expect(events.at(-1)).toMatchObject({
      event: 'run.completed',
      reward: 1,
      finished: true,
      stop_reason: 'finished',
      turns: 2,
      output: SUBMIT_TEXT,
      usage: sum(turnOne.usage, vendorCase.submit.usage),
    });
    expect(vendor.bodiesOf(vendorCase.route)).toHaveLength(2);
  }

  function expectReasoningOfTurnOne(events: RunEvent[]): void {
    if (vendorCase.reasoning === undefined) {
      expect(only(events, 'reasoning.delta')).toEqual([]);
      expect(only(events, 'reasoning.available')).toEqual([]);
      return;
    }
    expect(joined(only(events, 'reasoning.delta', 1))).toBe(vendorCase.reasoning);
    expect(only(events, 'reasoning.available')).toMatchObject([{ turn: 1, text: vendorCase.reasoning }]);
  }

  it('computes with the calculator, submits 42 and earns reward 1, sending the tool result back in the vendor format', async () => {
    vendor.reply(
      vendorCase.route,
      { kind: 'stream', fixture: vendorCase.calculator.fixture },
      { kind: 'stream', fixture: vendorCase.submit.fixture },
    );
    const events = await play();

    // reasoning.available sums up the turn's reasoning once the model's stream is over.
    const turnOne: RunEventType[] =
      vendorCase.reasoning === undefined
        ? ['tool.arguments.delta']
        : ['reasoning.delta', 'tool.arguments.delta', 'reasoning.available'];
    expect(shape(events)).toEqual([
      'run.started',
      'prompt.available',
      ...turnOne,
      'turn.completed',
      'tool.started',
      'tool.completed',
      'message.delta',
      'tool.arguments.delta',
      'turn.completed',
      'tool.started',
      'tool.completed',
      'run.completed',
    ]);
    expectReasoningOfTurnOne(events);
    // The recorded argument pieces, as the vendor streamed them, ahead of each call's tool.started.
    const pieces = (turn: number) => only(events, 'tool.arguments.delta', turn);
    expect(pieces(1).length).toBeGreaterThan(1);
    expect(
      JSON.parse(
        pieces(1)
          .map((event) => event.delta)
          .join(''),
      ),
    ).toEqual({ expression: '17 + 25' });
    expect(
      JSON.parse(
        pieces(2)
          .map((event) => event.delta)
          .join(''),
      ),
    ).toEqual({ answer: 42 });
    for (const [turn, callIndex] of [
      [1, 0],
      [2, 1],
    ] as const) {
      const started = only(events, 'tool.started', turn)[0]!;
      expect(pieces(turn).every((piece) => piece.tool === started.tool)).toBe(true);
      expect(pieces(turn).every((piece) => piece.tool_call_id === started.tool_call_id)).toBe(true);
      expect(pieces(turn).every((piece) => piece.call_index === callIndex)).toBe(true);
    }
    expect(only(events, 'tool.started', 1)).toMatchObject([
      {
        tool: 'calculator',
        tool_call_id: vendorCase.calculator.callId,
        arguments: { expression: '17 + 25' },
        call_index: 0,
      },
    ]);
    expect(only(events, 'tool.completed', 1)).toMatchObject([
      { tool: 'calculator', error: false, output: '17 + 25 = 42', finished: false },
    ]);
    expectSubmittedAfter(events, vendorCase.calculator);

    const [first, second] = vendor.bodiesOf(vendorCase.route);
    expect(JSON.stringify(first)).toContain(TASK.spec.question);
    expect(vendorCase.tail(first)).toEqual([]);
    expect(vendorCase.tail(second)).toEqual(
      vendorCase.expectedTail({
        turn: vendorCase.calculator,
        arguments: CALCULATOR_ARGUMENTS,
        output: '17 + 25 = 42',
        isError: false,
      }),
    );
  });

  it('sends a tool call whose arguments are not valid JSON back as a tool error, and the episode goes on to reward 1', async () => {
    vendor.reply(
      vendorCase.route,
      { kind: 'stream', fixture: vendorCase.invalid.fixture },
      { kind: 'stream', fixture: vendorCase.submit.fixture },
    );
    const events = await play();

    expectReasoningOfTurnOne(events);
    expect(only(events, 'tool.started', 1)).toMatchObject([
      { tool: 'calculator', tool_call_id: vendorCase.invalid.callId, arguments: {} },
    ]);
    const [failed] = only(events, 'tool.completed', 1);
    expect(failed).toMatchObject({ tool: 'calculator', error: true, reward: null, finished: false });
    expect(failed!.error_message).toMatch(/not a JSON object.*valid JSON/);
    expectSubmittedAfter(events, vendorCase.invalid);

    // The broken arguments go back as `{}` (vendors parse past arguments), the error as the tool result.
    const second = vendor.bodiesOf(vendorCase.route)[1];
    expect(vendorCase.tail(second)).toEqual(
      vendorCase.expectedTail({ turn: vendorCase.invalid, arguments: '{}', output: failed!.output, isError: true }),
    );
  });

  it('fails with model_stream_interrupted when the stream is cut in the middle of a tool call, and deletes the session', async () => {
    const { fixture, callId } = vendorCase.calculator;
    // The cut falls inside the call: its id has been sent, the last piece of its arguments has not.
    const sent = framesSent(fixture, vendorCase.cutAfterFrames);
    expect(sent).toContain(callId);
    expect(sent).not.toContain('25\\"}');
    vendor.reply(vendorCase.route, {
      kind: 'stream',
      fixture,
      stopAfterFrames: vendorCase.cutAfterFrames,
      then: 'cut',
    });
    const events = await play();

    expect(events.at(-1)).toMatchObject({ event: 'run.failed', code: 'model_stream_interrupted' });
    // Reasoning streamed before the call is reported live; the turn never completed, so it is never whole.
    expect(joined(only(events, 'reasoning.delta'))).toBe(vendorCase.reasoning ?? '');
    expect(only(events, 'reasoning.available')).toEqual([]);
    // Neither the half-streamed call nor the unfinished turn is reported.
    expect(only(events, 'tool.started')).toEqual([]);
    expect(only(events, 'turn.completed')).toEqual([]);
    expect(vendor.bodiesOf(vendorCase.route)).toHaveLength(1);
  });

  it('fails with model_auth when the vendor refuses the key, without retrying', async () => {
    vendor.reply(vendorCase.route, { kind: 'json', status: 401, body: vendorCase.unauthorized });
    const events = await play();

    expect(shape(events)).toEqual(['run.started', 'prompt.available', 'run.failed']);
    expect(events.at(-1)).toMatchObject({ event: 'run.failed', code: 'model_auth' });
    expect(vendor.bodiesOf(vendorCase.route)).toHaveLength(1);
  });

  it('fails with model_unavailable once 500s outlast the SDK retries', async () => {
    vendor.reply(vendorCase.route, { kind: 'json', status: 500, body: vendorCase.serverError, headers: FAST_RETRY });
    const events = await play();

    expect(shape(events)).toEqual(['run.started', 'prompt.available', 'run.failed']);
    expect(events.at(-1)).toMatchObject({ event: 'run.failed', code: 'model_unavailable' });
    expect(vendor.bodiesOf(vendorCase.route)).toHaveLength(1 + MAX_RETRIES);
  });
});
