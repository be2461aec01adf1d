import { createHash } from 'node:crypto';
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

/** Starts a run as a traced caller would (with the API key `key`, if any), reads it to its end, and answers its snapshot. */
async function tracedRun(bridge: TestBridge, body: Record<string, unknown>, key?: string): Promise<RunSnapshot> {
  const auth: Record<string, string> = key === undefined ? {} : { Authorization: `Bearer ${key}` };
  const response = await bridge.fetch('/v1/runs', {
    method: 'POST',
    headers: { ...auth, 'Content-Type': 'application/json', traceparent: TRACEPARENT },
    body: JSON.stringify(body),
  });
  const { run_id: runId } = (await response.json()) as { run_id: string };
  await bridge.readEvents(runId, { headers: auth });
  return (await (await bridge.fetch(`/v1/runs/${runId}`, { headers: auth })).json()) as RunSnapshot;
}

/** The vendor's two answers of an arith episode: a calculator call, then the submission. */
function replyCalculatorThenSubmit(vendor: FakeVendorServer): void {
  vendor.reply(
    'POST /v1/chat/completions',
    { kind: 'stream', fixture: 'openai-chat/arith-calculator.sse' },
    { kind: 'stream', fixture: 'openai-chat/arith-submit.sse' },
  );
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
    replyCalculatorThenSubmit(vendor);
    await tracedRun(bridge, { env: 'arith', task: TASK });
    await bridge.shutdown();
    const [first] = named(receiver.spans, 'chat gpt-4.1-mini');
    expect(String(first?.attributes['gen_ai.input.messages'])).toContain('What is 17 + 25?');
    expect(String(first?.attributes['gen_ai.output.messages'])).toContain(CALCULATOR_CALL_ID);
    const calculator = one(receiver.spans, 'execute_tool calculator');
    expect(JSON.parse(String(calculator.attributes['gen_ai.tool.call.arguments']))).toEqual({ expression: '17 + 25' });
    expect(String(calculator.attributes['gen_ai.tool.call.result'])).toContain('42');
  });

  it('cuts what a span records of a huge message at OTEL_SPAN_ATTRIBUTE_VALUE_LENGTH_LIMIT (16 384 characters)', async () => {
    const { bridge, vendor, receiver } = rig;
    replyCalculatorThenSubmit(vendor);
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

const KEY_A = 'tenant-a-0123456789abcdef';
const KEY_B = 'tenant-b-0123456789abcdef';
/** A key's label, as the log and RUNBRIDGE_TRACEPARENT_TRUST name it. */
const labelOf = (key: string) => `key_${createHash('sha256').update(key).digest().subarray(0, 8).toString('hex')}`;

/**
 * Whose `traceparent` a run follows (docs/security.md#traces): with two or more keys, by default no
 * caller's — one key must not write into another's trace — and the request starts a trace of its own,
 * linked to the caller's span; RUNBRIDGE_TRACEPARENT_TRUST names the keys (or `all`) that join theirs.
 */
describe.each([
  { mode: 'two keys, by default', env: {} as Record<string, string>, keys: [KEY_A, KEY_B], joins: [false, false] },
  {
    mode: 'two keys, key A trusted',
    env: { RUNBRIDGE_TRACEPARENT_TRUST: labelOf(KEY_A) },
    keys: [KEY_A, KEY_B],
    joins: [true, false],
  },
  {
    mode: 'two keys, all trusted',
    env: { RUNBRIDGE_TRACEPARENT_TRUST: 'all' },
    keys: [KEY_A, KEY_B],
    joins: [true, true],
  },
  { mode: 'no keys, none trusted', env: { RUNBRIDGE_TRACEPARENT_TRUST: 'none' }, keys: [undefined], joins: [false] },
])('a traced bridge with $mode', ({ env, keys, joins }) => {
  let rig: Rig;
  beforeEach(async () => {
    const apiKeys = keys.filter((key) => key !== undefined).join(',');
    rig = await startRig({ OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json', RUNBRIDGE_API_KEYS: apiKeys, ...env });
  });
  afterEach(() => stopRig(rig));

  it("joins the caller's trace only when its key is trusted, else starts one linked to it", async () => {
    const { bridge, receiver } = rig;
    const snapshots: RunSnapshot[] = [];
    for (const key of keys)
      snapshots.push(await tracedRun(bridge, { env: 'arith', task: TASK, model: 'offline' }, key));
    await bridge.shutdown();

    snapshots.forEach((snapshot, index) => {
      const agent = receiver.spans.find(
        (span) => span.name === 'invoke_agent arith' && span.attributes['gen_ai.conversation.id'] === snapshot.run_id,
      );
      expect(agent?.traceId).toBe(snapshot.trace_id);
      const request = receiver.spans.find((span) => span.spanId === agent?.parentSpanId);
      expect(request).toMatchObject({ name: 'POST /v1/runs', traceId: snapshot.trace_id });
      if (request === undefined) return;
      if (joins[index]) {
        expect(snapshot.trace_id).toBe(CALLER_TRACE);
        expect(request.parentSpanId).toBe(CALLER_SPAN);
        expect(request.links).toEqual([]);
      } else {
        expect(snapshot.trace_id).toMatch(/^[\da-f]{32}$/);
        expect(snapshot.trace_id).not.toBe(CALLER_TRACE);
        expect(request.parentSpanId).toBe('');
        expect(request.links).toEqual([{ traceId: CALLER_TRACE, spanId: CALLER_SPAN }]);
      }
    });
    const joined = joins.filter(Boolean).length;
    expect(named(receiver.spans, 'invoke_agent arith').filter((span) => span.traceId === CALLER_TRACE)).toHaveLength(
      joined,
    );
  });
});
