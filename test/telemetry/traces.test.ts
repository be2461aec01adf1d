import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { builtinEnvironments } from '../../adapters/environments/builtin-environments.js';
import { createOpenAiChatProvider } from '../../adapters/models/openai-chat/openai-chat-provider.js';
import { createOrsServer, type OrsServer } from '../../src/ors/server/create-ors-server.js';
import type { RunSnapshot } from '../../src/protocol/run-snapshot.js';
import { type FakeVendorServer, startFakeVendorServer } from '../support/fake-vendor-server.js';
import { OrsFaultProxy } from '../support/ors-fault-proxy.js';
import { type OtlpReceiver, type ReceivedSpan, startOtlpReceiver } from '../support/otlp-receiver.js';
import { startTestBridge, type TestBridge } from '../support/start-test-bridge.js';

/**
 * Traces (docs/operations.md#traces), end to end: a bridge whose runs call the real OpenAI SDK against a
 * loopback vendor and an ORS server behind a recording proxy exports its spans to a loopback OTLP/HTTP
 * receiver, which decodes what the real exporter sends.
 */

const TASK = { spec: { question: 'What is 17 + 25?', answer: 42 } };
const CALLER_TRACE = '4bf92f3577b34da6a3ce929d0e0e4736';
const CALLER_SPAN = '00f067aa0ba902b7';
const TRACEPARENT = `00-${CALLER_TRACE}-${CALLER_SPAN}-01`;
const CALCULATOR_CALL_ID = 'call_R4tY8uI2oP6aS1dF5gH9jK3l';
const KIND = { internal: 1, server: 2, client: 3 };
const STATUS_ERROR = 2;

interface Rig {
  receiver: OtlpReceiver;
  vendor: FakeVendorServer;
  ors: OrsServer;
  proxy: OrsFaultProxy;
  bridge: TestBridge;
}

async function startRig(env: Record<string, string>): Promise<Rig> {
  const receiver = await startOtlpReceiver();
  const vendor = await startFakeVendorServer();
  const ors = createOrsServer({ environments: builtinEnvironments });
  const proxy = await OrsFaultProxy.start(await ors.listen(0, '127.0.0.1'));
  const bridge = await startTestBridge(
    {
      ORS_URL: proxy.url,
      RUNBRIDGE_MODEL: 'openai',
      OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
      OTEL_SERVICE_NAME: 'runbridge-under-test',
      RUNBRIDGE_TRACE_URL: 'https://jaeger.example/trace/{trace_id}',
      ...env,
    },
    { providers: [createOpenAiChatProvider({ apiKey: 'test-key', baseUrl: `${vendor.url}/v1`, maxRetries: 0 })] },
  );
  return { receiver, vendor, ors, proxy, bridge };
}

async function stopRig(rig: Rig): Promise<void> {
  await rig.bridge.shutdown();
  await rig.proxy.close();
  await rig.ors.close();
  await rig.vendor.close();
  await rig.receiver.close();
}

/** Starts a run as a traced caller would, reads it to its end, and answers its snapshot. */
async function tracedRun(bridge: TestBridge, body: Record<string, unknown>): Promise<RunSnapshot> {
  const response = await bridge.fetch('/v1/runs', {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', traceparent: TRACEPARENT },
    body: JSON.stringify(body),
  });
  const { run_id: runId } = (await response.json()) as { run_id: string };
  await bridge.readEvents(runId);
  return (await (await bridge.fetch(`/v1/runs/${runId}`)).json()) as RunSnapshot;
}

function named(spans: ReceivedSpan[], name: string): ReceivedSpan[] {
  return spans.filter((span) => span.name === name);
}

function one(spans: ReceivedSpan[], name: string): ReceivedSpan {
  const found = named(spans, name);
  expect(found.map((span) => span.name)).toEqual([name]);
  return found[0]!;
}

/** The span id a `traceparent` names as the parent, checking it belongs to the caller's trace. */
function parentIn(traceparent: string | string[] | undefined): string {
  const match = /^00-([\da-f]{32})-([\da-f]{16})-01$/.exec(String(traceparent));
  expect(match?.[1]).toBe(CALLER_TRACE);
  return match![2]!;
}

describe.each(['http/protobuf', 'http/json'])('a traced run exported over OTLP %s', (protocol) => {
  let rig: Rig;
  beforeEach(async () => {
    rig = await startRig({ OTEL_EXPORTER_OTLP_PROTOCOL: protocol });
  });
  afterEach(() => stopRig(rig));

  it("joins the caller's trace, with GenAI spans for the run, each model call and each tool call, and passes traceparent on", async () => {
    const { bridge, vendor, proxy, receiver } = rig;
    vendor.reply(
      'POST /v1/chat/completions',
      { kind: 'stream', fixture: 'openai-chat/arith-calculator.sse' },
      { kind: 'stream', fixture: 'openai-chat/arith-submit.sse' },
    );
    const snapshot = await tracedRun(bridge, {
      env: 'arith',
      task: TASK,
      sampling: { temperature: 0.2, max_tokens: 256 },
    });
    expect(snapshot).toMatchObject({
      status: 'completed',
      trace_id: CALLER_TRACE,
      trace_url: `https://jaeger.example/trace/${CALLER_TRACE}`,
    });
    await bridge.shutdown(); // sends the spans still buffered

    expect(new Set(receiver.contentTypes)).toEqual(
      new Set([protocol === 'http/json' ? 'application/json' : 'application/x-protobuf']),
    );
    const spans = receiver.spans.filter((span) => span.traceId === CALLER_TRACE);
    const request = one(spans, 'POST /v1/runs');
    expect(request).toMatchObject({ parentSpanId: CALLER_SPAN, kind: KIND.server });
    expect(request.attributes).toMatchObject({ 'http.route': '/v1/runs', 'http.response.status_code': 202 });
    expect(request.resource).toMatchObject({ 'service.name': 'runbridge-under-test' });

    const agent = one(spans, 'invoke_agent arith');
    expect(agent.parentSpanId).toBe(request.spanId);
    expect(agent.attributes).toMatchObject({
      'gen_ai.operation.name': 'invoke_agent',
      'gen_ai.agent.name': 'arith',
      'gen_ai.conversation.id': snapshot.run_id,
      'gen_ai.usage.input_tokens': snapshot.usage.input_tokens,
      'gen_ai.usage.output_tokens': snapshot.usage.output_tokens,
    });

    const chats = named(spans, 'chat gpt-4.1-mini');
    expect(chats).toHaveLength(2);
    for (const chat of chats) {
      expect(chat).toMatchObject({ parentSpanId: agent.spanId, kind: KIND.client });
      expect(chat.attributes).toMatchObject({
        'gen_ai.operation.name': 'chat',
        'gen_ai.provider.name': 'openai',
        'gen_ai.request.model': 'gpt-4.1-mini',
        'gen_ai.response.model': 'gpt-4.1-mini',
        'gen_ai.request.temperature': 0.2,
        'gen_ai.request.max_tokens': 256,
        'gen_ai.response.finish_reasons': ['tool_calls'],
      });
      // Without OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT, no prompt and no output.
      expect(chat.attributes['gen_ai.input.messages']).toBeUndefined();
      expect(chat.attributes['gen_ai.output.messages']).toBeUndefined();
    }
    expect(chats.map((chat) => chat.attributes['gen_ai.usage.input_tokens'])).toEqual([163, 214]);
    expect(chats.map((chat) => chat.attributes['gen_ai.usage.output_tokens'])).toEqual([22, 27]);

    const calculator = one(spans, 'execute_tool calculator');
    expect(calculator.parentSpanId).toBe(agent.spanId);
    expect(calculator.attributes).toMatchObject({
      'gen_ai.operation.name': 'execute_tool',
      'gen_ai.tool.name': 'calculator',
      'gen_ai.tool.call.id': CALCULATOR_CALL_ID,
    });
    expect(one(spans, 'execute_tool submit').parentSpanId).toBe(agent.spanId);
    expect(one(spans, 'ors.session.setup').parentSpanId).toBe(agent.spanId);
    expect(one(spans, 'ors.session.teardown').parentSpanId).toBe(agent.spanId);
    expect(spans.every((span) => span.status !== STATUS_ERROR)).toBe(true);

    // The model server and the ORS server join the trace: each request names the span that sent it.
    const modelCalls = vendor.requests.filter((sent) => sent.path === '/v1/chat/completions');
    expect(modelCalls.map((sent) => parentIn(sent.headers.traceparent))).toEqual(chats.map((chat) => chat.spanId));
    const toolCalls = proxy.requests.filter((sent) => sent.method === 'POST' && sent.path.endsWith('/call'));
    expect(toolCalls.map((sent) => parentIn(sent.traceparent))).toEqual(
      [calculator, one(spans, 'execute_tool submit')].map((span) => span.spanId),
    );
    const setup = one(spans, 'ors.session.setup');
    const created = proxy.requests.find((sent) => sent.path.endsWith('/create'));
    expect(parentIn(created?.traceparent)).toBe(setup.spanId);
  });
});

describe('a traced run whose model call fails', () => {
  let rig: Rig;
  beforeEach(async () => {
    rig = await startRig({ OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json' });
  });
  afterEach(() => stopRig(rig));

  it('marks the chat span and the run span as errors, with the error code as error.type', async () => {
    const { bridge, vendor, receiver } = rig;
    vendor.reply('POST /v1/chat/completions', {
      kind: 'json',
      status: 401,
      body: {
        error: { message: 'Incorrect API key provided.', type: 'invalid_request_error', code: 'invalid_api_key' },
      },
    });
    const snapshot = await tracedRun(bridge, { env: 'arith', task: TASK });
    expect(snapshot.error?.code).toBe('model_auth');
    await bridge.shutdown();
    const spans = receiver.spans.filter((span) => span.traceId === CALLER_TRACE);
    for (const name of ['chat gpt-4.1-mini', 'invoke_agent arith']) {
      const span = one(spans, name);
      expect(span.status).toBe(STATUS_ERROR);
      expect(span.attributes['error.type']).toBe('model_auth');
    }
  });
});

describe('a traced run with message content captured', () => {
  let rig: Rig;
  beforeEach(async () => {
    rig = await startRig({ OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT: 'true' });
  });
  afterEach(() => stopRig(rig));

  it("records what the model was sent and answered, and the tools' arguments and results", async () => {
    const { bridge, vendor, receiver } = rig;
    vendor.reply(
      'POST /v1/chat/completions',
      { kind: 'stream', fixture: 'openai-chat/arith-calculator.sse' },
      { kind: 'stream', fixture: 'openai-chat/arith-submit.sse' },
    );
    await tracedRun(bridge, { env: 'arith', task: TASK });
    await bridge.shutdown();
    const [first] = named(receiver.spans, 'chat gpt-4.1-mini');
    expect(String(first?.attributes['gen_ai.input.messages'])).toContain('What is 17 + 25?');
    expect(String(first?.attributes['gen_ai.output.messages'])).toContain(CALCULATOR_CALL_ID);
    const calculator = one(receiver.spans, 'execute_tool calculator');
    expect(JSON.parse(String(calculator.attributes['gen_ai.tool.call.arguments']))).toEqual({ expression: '17 + 25' });
    expect(String(calculator.attributes['gen_ai.tool.call.result'])).toContain('42');
  });
});

describe('a traced run with message content captured, sent a huge message', () => {
  let rig: Rig;
  beforeEach(async () => {
    rig = await startRig({ OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT: 'true' });
  });
  afterEach(() => stopRig(rig));

  it('cuts what a span records of it at OTEL_SPAN_ATTRIBUTE_VALUE_LENGTH_LIMIT (16 384 characters)', async () => {
    const { bridge, vendor, receiver } = rig;
    vendor.reply(
      'POST /v1/chat/completions',
      { kind: 'stream', fixture: 'openai-chat/arith-calculator.sse' },
      { kind: 'stream', fixture: 'openai-chat/arith-submit.sse' },
    );
    const huge = `Before you answer, read this: ${'lorem ipsum '.repeat(75_000)}`;
    await tracedRun(bridge, { env: 'arith', task: TASK, input: huge });
    await bridge.shutdown();
    const chats = named(receiver.spans, 'chat gpt-4.1-mini');
    expect(chats).toHaveLength(2);
    for (const chat of chats) {
      const input = String(chat.attributes['gen_ai.input.messages']);
      expect(input).toHaveLength(16_384);
      expect(input).toContain('Before you answer, read this: lorem ipsum');
    }
  });
});
