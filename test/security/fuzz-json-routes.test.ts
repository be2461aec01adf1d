import net from 'node:net';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createOfflineProvider } from '../../adapters/models/offline/offline-provider.js';
import { ChatCompletionRequestSchema } from '../../src/protocol/chat-completion-request.js';
import { DecisionRequestSchema } from '../../src/protocol/decision-request.js';
import { MessageRequestSchema } from '../../src/protocol/message-request.js';
import { RunRequestSchema } from '../../src/protocol/run-request.js';
import { assertEventOrder } from '../../src/protocol/verify-event-order.js';
import { captureLog } from '../support/captured-log.js';
import { eventually } from '../support/eventually.js';
import { PROTOTYPE_NAMES, showsInheritedMember } from '../support/prototype-names.js';
import { startTestBridge, type TestBridge } from '../support/start-test-bridge.js';

/**
 * Property-based fuzzing of every JSON route (docs/protocol.md §2, §6 "Bad input of any shape gets a 4xx
 * with a clear message and never crashes the server or disturbs another run"): malformed JSON, wrong types,
 * huge strings, deep nesting, unknown keys, wrong content types, oversize bodies, bad cursors, bad
 * ids, hostile headers. Every answer is below 500, every 4xx carries the error body of §2, a
 * 2xx only ever answers input the route's schema accepts, and runs started meanwhile complete.
 */

const MAX_BODY_BYTES = 64 * 1024;

const ErrorBodySchema = z.strictObject({
  error: z.strictObject({
    code: z.string().regex(/^[a-z][a-z0-9_]*$/),
    message: z.string().min(10),
    details: z.unknown().optional(),
  }),
});

let bridge: TestBridge;
let finishedRunId: string;
const log = captureLog('warn');
const inputs = new Map<string, number>();
const startedRuns: string[] = [];

beforeAll(async () => {
  bridge = await startTestBridge(
    // The chat page is off: whether this checkout built it (GET / answers 503 until `npm run build`) is
    // test/ui's to check; here `/` is one more route that is not the API's.
    { RUNBRIDGE_MAX_BODY_BYTES: String(MAX_BODY_BYTES), RUNBRIDGE_MAX_CONCURRENT_RUNS: '256', RUNBRIDGE_UI: '0' },
    {
      // A slower offline model keeps the background runs live while the fuzzing goes on.
      providers: [{ ...createOfflineProvider({ tokenDelayMs: 1 }), name: 'steady' }],
      logger: log.logger,
    },
  );
  finishedRunId = await bridge.startRun({ env: 'arith' });
  await bridge.readEvents(finishedRunId);
});

afterAll(async () => {
  await bridge?.shutdown();
  console.info(
    `fuzzed inputs by route: ${JSON.stringify(Object.fromEntries(inputs))}, total ${[...inputs.values()].reduce((a, b) => a + b, 0)}`,
  );
});

/** A route's answer as the fuzz checks it. */
interface Answer {
  status: number;
  contentType: string;
  text: string;
}

function count(route: string): void {
  inputs.set(route, (inputs.get(route) ?? 0) + 1);
}

async function send(path: string, init: RequestInit = {}): Promise<Answer> {
  const response = await bridge.fetch(path, init);
  // Reading to the end also consumes any event stream, which ends with its finished run.
  const text = await response.text();
  return { status: response.status, contentType: response.headers.get('content-type') ?? '', text };
}

/**
 * The contract every answer to hostile input keeps (the tests below name it "the contract"): no 5xx,
 * and the error body of docs/protocol.md §2 on every 4xx.
 */
function expectContractAnswer(answer: Answer, what: unknown): void {
  const label = JSON.stringify(what)?.slice(0, 300);
  expect(answer.status, label).toBeLessThan(500);
  // A lookup that found an inherited member (`model: "constructor"`) writes out `Object` itself.
  expect(showsInheritedMember(answer.text), `${label} → ${answer.text.slice(0, 300)}`).toBe(false);
  if (answer.status >= 400) {
    expect(answer.contentType, label).toMatch(/^application\/json/);
    expect(ErrorBodySchema.safeParse(JSON.parse(answer.text)).success, `${label} → ${answer.text.slice(0, 300)}`).toBe(
      true,
    );
  }
}

/**
 * The answers in the raw bytes of one connection, in order (a header value with CR LF in it can turn
 * one request into two). Each is read by its `Content-Length`, or de-chunked.
 */
function rawResponses(raw: string): Answer[] {
  const answers: Answer[] = [];
  let at = 0;
  while (raw.startsWith('HTTP/1.1 ', at)) {
    const headEnd = raw.indexOf('\r\n\r\n', at);
    if (headEnd < 0) break;
    const head = raw.slice(at, headEnd);
    const status = Number(head.slice(9, 12));
    const contentType = /^content-type: *(.*)$/im.exec(head)?.[1] ?? '';
    const length = /^content-length: *(\d+)$/im.exec(head)?.[1];
    let body = '';
    at = headEnd + 4;
    if (length !== undefined) {
      body = raw.slice(at, at + Number(length));
      at += Number(length);
    } else if (/^transfer-encoding: *chunked$/im.test(head)) {
      for (;;) {
        const lineEnd = raw.indexOf('\r\n', at);
        const size = lineEnd < 0 ? 0 : Number.parseInt(raw.slice(at, lineEnd), 16);
        if (!(size > 0)) {
          at = lineEnd < 0 ? raw.length : lineEnd + 4;
          break;
        }
        body += raw.slice(lineEnd + 2, lineEnd + 2 + size);
        at = lineEnd + 2 + size + 2;
      }
    } else {
      body = raw.slice(at);
      at = raw.length;
    }
    // The raw text is latin1 (one character a byte), so lengths above are byte counts.
    answers.push({ status, contentType, text: Buffer.from(body, 'latin1').toString('utf8') });
  }
  return answers;
}

/** Nested objects or arrays `depth` levels deep around `leaf`. */
function nested(depth: number, arrays: boolean, leaf: string): string {
  return arrays
    ? `${'['.repeat(depth)}${leaf}${']'.repeat(depth)}`
    : `${'{"a":'.repeat(depth)}${leaf}${'}'.repeat(depth)}`;
}

const weirdKey = fc.oneof(
  fc.string({ maxLength: 12 }),
  fc.constantFrom(...PROTOTYPE_NAMES, 'prototype', '', ' env', 'ENV', 'env\u0000'),
);

/** A name every object inherits, as the value of a field a lookup reads (`model`, `env`, `task.split`, …). */
const inheritedName = fc
  .tuple(fc.constantFrom(...PROTOTYPE_NAMES), fc.constantFrom('bare', 'provider', 'split'))
  .map(([name, shape]) => (shape === 'bare' ? name : shape === 'provider' ? `${name}:x` : { split: name }));

/** A body that deviates from `valid` in one way that the route must refuse, as JSON text. */
function mutated(valid: fc.Arbitrary<Record<string, unknown>>, fields: readonly string[]): fc.Arbitrary<string> {
  return fc.oneof(
    // An unknown key, at the top or inside a nested object.
    fc.tuple(valid, weirdKey, fc.jsonValue()).map(([body, key, value]) => {
      const copy: Record<string, unknown> = JSON.parse(JSON.stringify(body));
      Object.defineProperty(copy, fields.includes(key) ? `${key}_x` : key, { value, enumerable: true });
      return JSON.stringify(copy);
    }),
    // A known field with a value of any other shape.
    fc
      .tuple(valid, fc.constantFrom(...fields), fc.anything({ maxDepth: 3 }))
      .map(([body, field, value]) => JSON.stringify({ ...body, [field]: value })),
    // A known field naming what every object inherits.
    fc
      .tuple(valid, fc.constantFrom(...fields), inheritedName)
      .map(([body, field, value]) => JSON.stringify({ ...body, [field]: value })),
    // A huge string in a field that takes text.
    fc
      .tuple(valid, fc.integer({ min: 10_000, max: 200_000 }))
      .map(([body, size]) => JSON.stringify({ ...body, [fields[0]!]: 'x'.repeat(size) })),
    // Hostile nesting.
    fc
      .tuple(fc.integer({ min: 50, max: 20_000 }), fc.boolean(), fc.constantFrom(...fields))
      .map(([depth, arrays, field]) => `{"${field}":${nested(depth, arrays, '1')}}`),
    // The JSON text cut short, or with garbage spliced in.
    fc.tuple(valid, fc.nat(), fc.string({ maxLength: 5 })).map(([body, at, junk]) => {
      const text = JSON.stringify(body);
      const cut = at % Math.max(1, text.length - 1);
      return junk === '' ? text.slice(0, cut) : text.slice(0, cut) + junk + text.slice(cut);
    }),
  );
}

/** Whatever a client might send as a JSON route's body: anything at all, or a near miss of a valid body. */
function hostileBody(valid: fc.Arbitrary<Record<string, unknown>>, fields: readonly string[]): fc.Arbitrary<string> {
  return fc.oneof(
    fc.json({ maxDepth: 4 }),
    fc.string({ maxLength: 200 }),
    fc.string({ unit: 'binary', maxLength: 200 }),
    fc.anything({ maxDepth: 4, withNullPrototype: true }).map((value) => JSON.stringify(value) ?? 'undefined'),
    mutated(valid, fields),
  );
}

const contentType = fc.oneof(
  { weight: 6, arbitrary: fc.constant('application/json') },
  {
    weight: 4,
    arbitrary: fc.oneof(
      fc.constantFrom(
        'text/plain',
        'application/xml',
        'application/x-www-form-urlencoded',
        'multipart/form-data; boundary=x',
        'application/jsonx',
        'json',
        'application/json; charset=utf-16',
        '',
      ),
      fc.string({ maxLength: 40 }).filter((text) => /^[\x20-\x7e]*$/.test(text)),
    ),
  },
);

const validRunRequest = fc.record(
  {
    instructions: fc.string({ maxLength: 20 }),
    env: fc.constantFrom('arith', 'workspace'),
    task: fc.record({ split: fc.constant('train'), index: fc.nat(20) }),
    max_turns: fc.integer({ min: 1, max: 3 }),
    sampling: fc.record({ temperature: fc.double({ min: 0, max: 2, noNaN: true }) }, { requiredKeys: [] }),
    metadata: fc.dictionary(fc.string({ maxLength: 5 }), fc.string({ maxLength: 5 }), { maxKeys: 3 }),
  },
  { requiredKeys: [] },
);

const validChatRequest = fc.record(
  {
    messages: fc.constant([{ role: 'user', content: 'hi' }]),
    env: fc.constant('arith'),
    max_turns: fc.integer({ min: 1, max: 3 }),
    temperature: fc.double({ min: 0, max: 2, noNaN: true }),
    stream: fc.boolean(),
  },
  { requiredKeys: ['messages'] },
);

const validDecision = fc.record(
  {
    decision: fc.constantFrom('approve', 'deny'),
    reason: fc.string({ maxLength: 20 }),
  },
  { requiredKeys: ['decision'] },
);

const validMessage = fc.record({
  content: fc.oneof(
    fc.string({ minLength: 1, maxLength: 30 }).filter((text) => text.trim() !== ''),
    fc.constant([{ type: 'text', text: 'hi' }]),
  ),
});

/** Fuzzes a JSON body route: every answer honours the contract; a 2xx only for what `schema` accepts. */
async function fuzzBodyRoute(
  route: string,
  schema: z.ZodType,
  valid: fc.Arbitrary<Record<string, unknown>>,
  fields: readonly string[],
  numRuns: number,
): Promise<void> {
  await fc.assert(
    fc.asyncProperty(hostileBody(valid, fields), contentType, async (body, type) => {
      count(route.replace(/run_\w+/, ':id').replace(/appr_\w+/, ':approval_id'));
      const answer = await send(route, { method: 'POST', headers: type === '' ? {} : { 'Content-Type': type }, body });
      expectContractAnswer(answer, { body: body.slice(0, 200), type });
      if (answer.status < 300) {
        const parsed: unknown = body.trim() === '' ? {} : JSON.parse(body);
        expect(schema.safeParse(parsed).success, body.slice(0, 300)).toBe(true);
        const runId = /"(?:run_id|id)":"([^"]+)"/.exec(answer.text)?.[1];
        if (route === '/v1/runs' && runId) startedRuns.push(runId);
      }
    }),
    { numRuns },
  );
}

describe('fuzzing every JSON route while normal runs go on', () => {
  let stop = false;
  let normalRuns = 0;
  let background: Promise<void>;

  // The normal client's own connections, a new one per request: none the fuzzing used, and none left
  // idle for the server's keep-alive timeout to close as a request goes out on it (a busy machine's
  // late timers made that an ECONNRESET now and then).
  const normalClient = { headers: { Connection: 'close' } };

  beforeAll(() => {
    background = (async () => {
      while (!stop) {
        const runId = await bridge.startRun(
          { env: 'workspace', model: 'steady', task: { split: 'train', index: normalRuns % 10 } },
          normalClient,
        );
        const events = await bridge.readEvents(runId, normalClient);
        assertEventOrder(events);
        expect(events.at(-1)).toMatchObject({ event: 'run.completed', reward: 1 });
        normalRuns++;
      }
    })();
  });

  afterAll(async () => {
    stop = true;
    await background;
    console.info(`normal runs completed untouched during the fuzzing: ${normalRuns}`);
  });

  it('answers POST /v1/runs with the contract whatever the body and content type', async () => {
    const fields = Object.keys(RunRequestSchema.shape);
    await fuzzBodyRoute(
      '/v1/runs',
      RunRequestSchema,
      validRunRequest,
      ['instructions', ...fields.filter((field) => field !== 'instructions')],
      1500,
    );
  }, 240_000);

  it('answers POST /v1/chat/completions with the contract whatever the body and content type', async () => {
    const fields = Object.keys(ChatCompletionRequestSchema.shape);
    await fuzzBodyRoute(
      '/v1/chat/completions',
      ChatCompletionRequestSchema,
      validChatRequest,
      ['user', ...fields.filter((field) => field !== 'user')],
      800,
    );
  }, 240_000);

  describe('the routes of a person in the loop, on a run that waits for a decision', () => {
    let waitingRunId: string;
    let approvalId: string;

    beforeAll(async () => {
      // The offline model's first arith call waits for approval all through the fuzzing.
      waitingRunId = await bridge.startRun({ env: 'arith', approval: { tools: '*' } });
      approvalId = await eventually(async () => {
        const snapshot = (await (await bridge.fetch(`/v1/runs/${waitingRunId}`)).json()) as {
          pending_approvals: Array<{ approval_id: string }>;
        };
        return snapshot.pending_approvals[0]?.approval_id;
      }, 'the approval asked');
    });
    afterAll(async () => {
      await bridge.fetch(`/v1/runs/${waitingRunId}/cancel`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
      });
      assertEventOrder(await bridge.readEvents(waitingRunId));
    });

    it('answers POST /v1/runs/:id/messages with the contract whatever the body and content type', async () => {
      await fuzzBodyRoute(`/v1/runs/${waitingRunId}/messages`, MessageRequestSchema, validMessage, ['content'], 400);
    }, 120_000);

    it('answers POST /v1/runs/:id/approvals/:approval_id with the contract whatever the body and content type', async () => {
      // The approval is decided by the first valid decision; the valid ones after it are 409s.
      await fuzzBodyRoute(
        `/v1/runs/${waitingRunId}/approvals/${approvalId}`,
        DecisionRequestSchema,
        validDecision,
        ['reason', 'decision', 'arguments'],
        400,
      );
    }, 120_000);
  });

  it('answers bodies over the size limit with 413, declared or streamed', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(
          '/v1/runs',
          '/v1/chat/completions',
          `/v1/runs/${finishedRunId}/stream-token`,
          `/v1/runs/${finishedRunId}/messages`,
          `/v1/runs/${finishedRunId}/approvals/appr_x`,
        ),
        fc.integer({ min: MAX_BODY_BYTES + 1, max: 4 * MAX_BODY_BYTES }),
        fc.boolean(),
        async (route, size, streamed) => {
          count('oversize bodies');
          const text = JSON.stringify({ instructions: 'x'.repeat(size) });
          const body = streamed
            ? new ReadableStream({
                start(controller) {
                  controller.enqueue(new TextEncoder().encode(text));
                  controller.close();
                },
              })
            : text;
          const answer = await send(route, {
            method: 'POST',
            headers: { 'Content-Type': 'application/json' },
            body,
            ...(streamed ? { duplex: 'half' } : {}),
          } as RequestInit);
          expectContractAnswer(answer, { route, size, streamed });
          expect(answer.status).toBe(413);
          expect(JSON.parse(answer.text)).toMatchObject({ error: { code: 'body_too_large' } });
        },
      ),
      { numRuns: 60 },
    );
  });

  it('answers GET /v1/runs with the contract whatever the query', async () => {
    const value = fc.oneof(
      fc.string({ maxLength: 20 }),
      fc.integer().map(String),
      fc.constantFrom('queued', 'running', 'completed', 'failed', 'cancelled', '0', '-1', '101', '1e2', 'NaN', ''),
      fc.constantFrom(...PROTOTYPE_NAMES),
    );
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.tuple(fc.oneof(fc.constantFrom('status', 'limit', 'after'), weirdKey), value), { maxLength: 4 }),
        async (pairs) => {
          count('GET /v1/runs');
          const query = new URLSearchParams(pairs).toString();
          const answer = await send(`/v1/runs?${query}`);
          expectContractAnswer(answer, query);
          expect([200, 400]).toContain(answer.status);
        },
      ),
      { numRuns: 400 },
    );
  });

  it('answers 404 or 400 for ids that name no run, on every run route', async () => {
    const id = fc.oneof(
      fc.string({ maxLength: 40 }),
      fc.string({ unit: 'binary', maxLength: 40 }),
      fc.constantFrom(
        '..',
        '%2e%2e',
        'run_',
        `${finishedRunId}x`,
        finishedRunId.toUpperCase(),
        ' ',
        '%00',
        '%ZZ',
        'a'.repeat(2000),
      ),
    );
    const route = fc.constantFrom(
      ['GET', ''],
      ['DELETE', ''],
      ['POST', '/cancel'],
      ['GET', '/events'],
      ['POST', '/stream-token'],
      ['POST', '/messages'],
      ['POST', '/approvals/appr_x'],
    );
    await fc.assert(
      fc.asyncProperty(id, route, async (raw, [method, suffix]) => {
        const encoded = /^[%a-zA-Z0-9_.]*$/.test(raw) ? raw : encodeURIComponent(raw);
        // An empty id, "." or ".." (also percent-encoded) is not an id: URL normalisation makes it another route.
        fc.pre(!/^(?:\.|%2e){0,2}$/i.test(encoded));
        count('bad run ids');
        // Without keys a POST needs the JSON content type before anything else is judged.
        const headers = method === 'POST' ? { 'Content-Type': 'application/json' } : undefined;
        const answer = await send(`/v1/runs/${encoded}${suffix}`, { method, ...(headers ? { headers } : {}) });
        expectContractAnswer(answer, { raw, method, suffix });
        expect([400, 404]).toContain(answer.status);
      }),
      { numRuns: 600 },
    );
  });

  it('answers the events route with the contract whatever the cursor, query and Accept', async () => {
    const cursor = fc.oneof(
      fc.string({ maxLength: 12 }),
      fc.integer({ min: -5, max: 200 }).map(String),
      fc.constantFrom('1e2', '0x1', ' 3', '3 ', '+3', '-0', '99999999999999999999'),
    );
    const query = fc.array(
      fc.tuple(
        fc.oneof(fc.constantFrom('after', 'limit', 'format', 'agent_events', 'token'), weirdKey),
        fc.oneof(
          cursor,
          fc.constantFrom('events', 'openai', 'combined', 'ag-ui', 'xml', '1', 'true'),
          fc.constantFrom(...PROTOTYPE_NAMES),
        ),
      ),
      { maxLength: 3 },
    );
    const lastEventId = fc.option(
      cursor.filter((text) => /^[\x20-\x7e]*$/.test(text)),
      { nil: undefined },
    );
    const accept = fc.constantFrom(
      undefined,
      'application/json',
      'text/event-stream',
      '*/*',
      'application/json, text/event-stream',
      'image/png',
    );
    await fc.assert(
      fc.asyncProperty(query, lastEventId, accept, async (pairs, last, acceptHeader) => {
        count('events route');
        const headers: Record<string, string> = {};
        if (last !== undefined) headers['Last-Event-ID'] = last;
        if (acceptHeader !== undefined) headers.Accept = acceptHeader;
        const answer = await send(`/v1/runs/${finishedRunId}/events?${new URLSearchParams(pairs).toString()}`, {
          headers,
        });
        expectContractAnswer(answer, { pairs, last, acceptHeader });
        expect([200, 204, 400, 401]).toContain(answer.status);
      }),
      { numRuns: 600 },
    );
  });

  it('answers hostile header bytes (Last-Event-ID injection, control characters) with the contract body', async () => {
    const { port } = new URL(bridge.url);
    const hostile = fc.oneof(
      fc.string({ unit: 'binary', maxLength: 30 }),
      fc
        .tuple(
          fc.nat(50),
          fc.constantFrom(
            '\r\n',
            '\n',
            '\r',
            '\u0000',
            '\r\nX-Injected: 1',
            '\r\n\r\nGET / HTTP/1.1',
            '\u007f',
            '\u00ff',
            '\t',
          ),
        )
        .map(([n, bad]) => `${n}${bad}`),
    );
    const header = fc.constantFrom('Last-Event-ID', 'Idempotency-Key', 'Authorization', 'Content-Type', 'Accept');
    await fc.assert(
      fc.asyncProperty(hostile, header, async (value, name) => {
        count('raw hostile headers');
        const path = name === 'Last-Event-ID' || name === 'Accept' ? `/v1/runs/${finishedRunId}/events` : '/v1/runs';
        const method = path === '/v1/runs' ? 'POST' : 'GET';
        const request = `${method} ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\n${name}: ${value}\r\nContent-Length: 0\r\nConnection: close\r\n\r\n`;
        const raw = await new Promise<string>((resolve) => {
          const socket = net.connect({ host: '127.0.0.1', port: Number(port) });
          let text = '';
          socket.on('data', (chunk: Buffer) => (text += chunk.toString('latin1')));
          socket.on('close', () => resolve(text));
          socket.on('error', () => resolve(text));
          socket.end(Buffer.from(request, 'latin1'));
        });
        const answers = rawResponses(raw);
        expect(answers.length, JSON.stringify({ value, name })).toBeGreaterThan(0);
        for (const answer of answers) {
          expectContractAnswer(answer, { value, name });
          const runId = answer.status === 202 ? /"run_id":"([^"]+)"/.exec(answer.text)?.[1] : undefined;
          if (runId) startedRuns.push(runId);
        }
      }),
      { numRuns: 400 },
    );
  });

  it('answers unknown methods and routes with the contract body', async () => {
    const method = fc.constantFrom('PUT', 'PATCH', 'DELETE', 'POST', 'GET', 'OPTIONS');
    const path = fc.constantFrom(
      '/v1/runs',
      `/v1/runs/${finishedRunId}`,
      `/v1/runs/${finishedRunId}/events`,
      '/v1/models',
      '/v1',
      '/',
      '/v1/runs/x/y/z',
      '/health/x',
      '/v1/schema/nope',
    );
    await fc.assert(
      fc.asyncProperty(method, path, async (verb, target) => {
        count('methods and routes');
        const answer = await send(target, { method: verb });
        expectContractAnswer(answer, { verb, target });
      }),
      { numRuns: 150 },
    );
  });

  it('leaves every run it let through complete, and logs no internal error', async () => {
    for (const runId of startedRuns) {
      // A fuzzed body may have asked for chat mode: a run that waits on a person ends by a cancel.
      const { status } = (await (await bridge.fetch(`/v1/runs/${runId}`)).json()) as { status: string };
      if (status === 'awaiting_input' || status === 'requires_action')
        await bridge.fetch(`/v1/runs/${runId}/cancel`, {
          method: 'POST',
          headers: { 'Content-Type': 'application/json' },
        });
      const events = await bridge.readEvents(runId);
      assertEventOrder(events);
    }
    expect(log.lines()).toEqual([]);
    expect(((await (await bridge.fetch('/health')).json()) as { status: string }).status).toBe('ok');
  }, 120_000);
});
