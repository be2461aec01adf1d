import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { z } from 'zod';
import {
  fillPath,
  methodOf,
  type RouteAnswer,
  type RouteDeclaration,
  type RouteKey,
} from '../../src/http/routes/route.js';
import { routeRefusals } from '../../src/http/routes/route-errors.js';
import { type BridgeRouteKey, ROUTE_TABLE } from '../../src/http/routes/route-table.js';
import { ErrorBodySchema } from '../../src/protocol/api-answers.js';
import { eventually } from '../support/eventually.js';
import { startTestRedis, type TestRedis } from '../support/redis-server.js';
import { startTestBridge, type TestBridge } from '../support/start-test-bridge.js';

/**
 * Every route of ROUTE_TABLE, driven on a real bridge with what a careless or hostile client sends —
 * bad path parameters, an unknown id, an unknown or ill-typed query, a body that is not JSON, of the
 * wrong shape or too large, bad headers, no key — and a good request besides. Whatever the bridge
 * answers must be what the route declares: one of its answers with a body its schema accepts, or one of
 * its refusals (`routeRefusals`) with the error body. Streams are judged by status, headers and first
 * frame.
 */

const KEY = 'a-key-of-sixteen-chars';
const METRICS_TOKEN = 'a-metrics-token-of-its-own';
const MAX_BODY_BYTES = 16 * 1024;
const SETTINGS = {
  RUNBRIDGE_API_KEYS: KEY,
  RUNBRIDGE_METRICS_TOKEN: METRICS_TOKEN,
  RUNBRIDGE_MAX_BODY_BYTES: String(MAX_BODY_BYTES),
};

/** What the probes need to exist on the bridge: ended runs and batches, one of each to forget. */
interface Fixtures {
  runId: string;
  /** The seq of the last event of `runId`. */
  lastSeq: number;
  /** A file of the chat page's build, as the page names it; undefined in a clone never built. */
  uiFile: string | undefined;
  /** A run whose tool call waits for a person's decision: still live. */
  liveRunId: string;
  doomedRunId: string;
  rolloutId: string;
  doomedRolloutId: string;
}

/** A request the route should take: its path parameters, query, body and headers. */
interface Request {
  params?: Record<string, string>;
  query?: Record<string, string>;
  /** JSON, sent as such; a string is sent as it is. */
  body?: unknown;
  headers?: Record<string, string>;
  /** The refusal a good request still gets, where the fixtures cannot make it succeed (an ended run). */
  refusedWith?: string;
}

const ROLLOUT = { env: 'arith', tasks: '0:1', samples: 1, model: 'offline' };

/** A good request of each route; a route added to the table without one here does not compile. */
const GOOD: Record<BridgeRouteKey, (fixtures: Fixtures) => Request> = {
  'POST /v1/runs': () => ({ body: { env: 'arith', model: 'offline' } }),
  'GET /v1/runs': () => ({ query: { limit: '2' } }),
  'GET /v1/runs/:id': ({ runId }) => ({ params: { id: runId } }),
  'DELETE /v1/runs/:id': ({ doomedRunId }) => ({ params: { id: doomedRunId } }),
  'GET /v1/runs/:id/events': ({ runId }) => ({ params: { id: runId }, query: { after: '-1' } }),
  'POST /v1/runs/:id/cancel': ({ runId }) => ({ params: { id: runId } }),
  'POST /v1/runs/:id/approvals/:approval_id': ({ runId }) => ({
    params: { id: runId, approval_id: 'appr_none' },
    body: { decision: 'approve' },
    refusedWith: 'run_ended',
  }),
  'POST /v1/runs/:id/messages': ({ runId }) => ({
    params: { id: runId },
    body: { content: 'hello' },
    refusedWith: 'run_ended',
  }),
  'POST /v1/runs/:id/stream-token': ({ runId }) => ({ params: { id: runId }, body: {} }),
  'POST /v1/chat/completions': () => ({
    body: { model: 'offline', env: 'arith', messages: [{ role: 'user', content: 'hi' }] },
  }),
  'GET /v1/models': () => ({}),
  'GET /v1/environments': () => ({}),
  'GET /health': () => ({}),
  'GET /ready': () => ({}),
  'GET /metrics': () => ({ headers: { Authorization: `Bearer ${METRICS_TOKEN}` } }),
  'GET /v1/schema/events': () => ({}),
  'GET /v1/openapi.json': () => ({}),
  'GET /': () => ({}),
  'GET /ui/:file': ({ uiFile }) =>
    // Without a build, a name no build makes: another lane may build the page while this file runs.
    uiFile === undefined
      ? { params: { file: 'no-build-makes-this.js' }, refusedWith: 'not_found' }
      : { params: { file: uiFile } },
  'POST /v1/rollouts': () => ({ body: ROLLOUT }),
  'GET /v1/rollouts': () => ({}),
  'GET /v1/rollouts/:id': ({ rolloutId }) => ({ params: { id: rolloutId } }),
  'DELETE /v1/rollouts/:id': ({ doomedRolloutId }) => ({ params: { id: doomedRolloutId } }),
  'POST /v1/rollouts/:id/cancel': ({ rolloutId }) => ({ params: { id: rolloutId } }),
  'GET /v1/rollouts/:id/records': ({ rolloutId }) => ({ params: { id: rolloutId } }),
  'POST /v1/rollouts/:id/stream-token': ({ rolloutId }) => ({ params: { id: rolloutId }, body: {} }),
  'POST /v1/a2a': ({ runId }) => ({
    headers: { 'A2A-Version': '1.0' },
    body: { jsonrpc: '2.0', id: 1, method: 'GetTask', params: { id: runId } },
  }),
  'GET /.well-known/agent-card.json': () => ({}),
};

/** Good requests beside the first that take another branch of a route: another format, a stream, a JSON page. */
const MORE: Partial<Record<BridgeRouteKey, (fixtures: Fixtures) => Array<[string, Request]>>> = {
  'GET /v1/runs': () => [['status=completed', { query: { status: 'completed', limit: '1' } }]],
  'DELETE /v1/runs/:id': ({ liveRunId }) => [
    ['of a live run', { params: { id: liveRunId }, refusedWith: 'run_active' }],
  ],
  'POST /v1/runs/:id/approvals/:approval_id': ({ liveRunId }) => [
    [
      'of a live run, for no call',
      {
        params: { id: liveRunId, approval_id: 'appr_none' },
        body: { decision: 'deny', reason: 'no' },
        refusedWith: 'approval_not_found',
      },
    ],
  ],
  'POST /v1/runs/:id/messages': ({ liveRunId }) => [
    ['to a live run', { params: { id: liveRunId }, body: { content: 'and then?' } }],
  ],
  'GET /v1/runs/:id/events': ({ runId, lastSeq, liveRunId }) => [
    ['of a live run', { params: { id: liveRunId } }],
    ['a JSON page', { params: { id: runId }, headers: { Accept: 'application/json' } }],
    ['resumed after its last event', { params: { id: runId }, headers: { 'Last-Event-ID': String(lastSeq) } }],
    ...['events', 'openai', 'combined', 'ag-ui', 'ai-sdk'].map((format): [string, Request] => [
      `format=${format}`,
      { params: { id: runId }, query: { format, agent_events: '1' } },
    ]),
  ],
  'POST /v1/runs': () => [
    [
      'with an Idempotency-Key',
      { body: { env: 'arith', model: 'offline' }, headers: { 'Idempotency-Key': 'fuzz-run' } },
    ],
    ['the same key again', { body: { env: 'arith', model: 'offline' }, headers: { 'Idempotency-Key': 'fuzz-run' } }],
    [
      'the same key, another body',
      {
        body: { env: 'arith', model: 'offline', max_turns: 3 },
        headers: { 'Idempotency-Key': 'fuzz-run' },
        refusedWith: 'idempotency_conflict',
      },
    ],
    ['an unknown model', { body: { env: 'arith', model: 'offline:nope' }, refusedWith: 'unknown_model' }],
    ['an unknown environment', { body: { env: 'nope', model: 'offline' }, refusedWith: 'unknown_env' }],
  ],
  'POST /v1/rollouts': () => [
    ['with an Idempotency-Key', { body: ROLLOUT, headers: { 'Idempotency-Key': 'fuzz-batch' } }],
    [
      'the same key, another body',
      {
        body: { ...ROLLOUT, seed: 9 },
        headers: { 'Idempotency-Key': 'fuzz-batch' },
        refusedWith: 'idempotency_conflict',
      },
    ],
    ['an unknown environment', { body: { ...ROLLOUT, env: 'nope' }, refusedWith: 'unknown_env' }],
    ['tasks out of range', { body: { ...ROLLOUT, tasks: '0:100000000' }, refusedWith: 'invalid_task' }],
  ],
  'POST /v1/chat/completions': () => [
    ['stream: true', { body: { ...(GOOD['POST /v1/chat/completions']({} as Fixtures).body as object), stream: true } }],
  ],
  'GET /v1/rollouts/:id/records': ({ rolloutId }) => [
    ['as SSE', { params: { id: rolloutId }, headers: { Accept: 'text/event-stream' } }],
    ['as grpo rows', { params: { id: rolloutId }, query: { format: 'grpo' } }],
    [
      'as SSE after its last record',
      { params: { id: rolloutId }, headers: { Accept: 'text/event-stream', 'Last-Event-ID': '0' } },
    ],
  ],
};

/** A probe: a name, a request and whether it carries the API key. */
interface Probe {
  name: string;
  request: Request;
  method?: 'HEAD';
  withoutKey?: true;
}

/**
 * Path parameter values no id has: odd characters, a very long one. (`.` and `..` cannot be sent as a
 * segment at all: fetch resolves them, encoded or not, and `fillPath` refuses them.)
 */
const BAD_SEGMENTS = ['...', 'a b/c?d#e', '%00\u0000\u00e9', '\u{1F600}', 'x'.repeat(4000)];
/** Query values of the wrong type or size. */
const BAD_QUERY_VALUES = ['', 'not-a-number', '-7', '1.5', '1e400', 'x'.repeat(2000), 'true'];

/** Every probe of route `key`, from its good request and its declaration. */
function probesOf(key: BridgeRouteKey, route: RouteDeclaration, fixtures: Fixtures): Probe[] {
  const good = GOOD[key](fixtures);
  const probes: Probe[] = [{ name: 'a good request', request: good }];
  for (const [name, request] of MORE[key]?.(fixtures) ?? []) probes.push({ name: `a good request, ${name}`, request });
  if (methodOf(key) === 'GET') probes.push({ name: 'HEAD of a good request', request: good, method: 'HEAD' });
  probes.push({ name: 'no key', request: good, withoutKey: true });
  probes.push({
    name: 'a wrong key',
    request: { ...good, headers: { ...good.headers, Authorization: 'Bearer not-a-key-of-this-bridge' } },
  });
  for (const name of Object.keys(good.params ?? {})) {
    probes.push({ name: `unknown ${name}`, request: { ...good, params: { ...good.params, [name]: `nope_${name}` } } });
    for (const value of BAD_SEGMENTS) {
      probes.push({ name: `bad ${name} ${JSON.stringify(value.slice(0, 12))}`, request: withParam(good, name, value) });
    }
  }
  probes.push({ name: 'an unknown query key', request: { ...good, query: { ...good.query, bogus: '1' } } });
  for (const name of Object.keys(route.query?.shape ?? {})) {
    for (const value of BAD_QUERY_VALUES) {
      probes.push({
        name: `query ${name}=${JSON.stringify(value.slice(0, 12))}`,
        request: { ...good, query: { ...good.query, [name]: value } },
      });
    }
  }
  for (const name of Object.keys(route.headers?.shape ?? {})) {
    for (const value of ['', ' ', 'x'.repeat(300), '-5', 'ab\tc']) {
      probes.push({
        name: `header ${name}=${JSON.stringify(value.slice(0, 12))}`,
        request: { ...good, headers: { ...good.headers, [name]: value } },
      });
    }
  }
  if (methodOf(key) === 'POST') {
    const bodies: Array<[string, unknown]> = [
      ['a body that is not JSON', '{"unfinished'],
      ['a JSON array', '[1, 2]'],
      ['a JSON string', '"text"'],
      ['null', 'null'],
      ['an unknown field', { ...(good.body as object), bogus: 1 }],
      ['a body too large', { filler: 'x'.repeat(MAX_BODY_BYTES) }],
    ];
    const shape = (route.body?.json.schema as { shape?: Record<string, unknown> } | undefined)?.shape ?? {};
    for (const name of Object.keys(shape)) {
      bodies.push([`field ${name} of the wrong type`, { ...(good.body as object), [name]: { nested: [true] } }]);
    }
    for (const [name, body] of bodies) probes.push({ name, request: { ...good, body } });
    probes.push({
      name: 'a body sent as text/plain',
      request: { ...good, headers: { ...good.headers, 'Content-Type': 'text/plain' } },
    });
  }
  return probes;
}

function withParam(request: Request, name: string, value: string): Request {
  return { ...request, params: { ...request.params, [name]: value } };
}

/** What the bridge answered, read as far as a stream's first frame. */
interface Answer {
  status: number;
  type: string;
  /** The JSON body, or the data of the first frame carrying any. */
  json?: unknown;
  /** Why the body could not be read as its type says. */
  unreadable?: string;
  /** A HEAD's answer: its status and headers, without a body. */
  head?: true;
  /** A stream asked for in another format than the default one. */
  otherFormat?: true;
}

async function send(bridge: TestBridge, key: RouteKey, probe: Probe): Promise<Answer> {
  const { request } = probe;
  const path = fillPath(key as never, (request.params ?? {}) as never);
  const query = new URLSearchParams(request.query).toString();
  const headers: Record<string, string> = probe.withoutKey ? {} : { Authorization: `Bearer ${KEY}` };
  const method = probe.method ?? methodOf(key);
  let body: string | undefined;
  if (request.body !== undefined || method === 'POST') {
    headers['Content-Type'] = 'application/json';
    body = typeof request.body === 'string' ? request.body : JSON.stringify(request.body ?? {});
  }
  Object.assign(headers, request.headers);
  if (probe.withoutKey) delete headers.Authorization;
  const response = await fetch(`${bridge.url}${path}${query === '' ? '' : `?${query}`}`, {
    method,
    headers,
    ...(body === undefined ? {} : { body }),
    signal: AbortSignal.timeout(30_000),
  });
  const type = response.headers.get('Content-Type') ?? '';
  const answer: Answer = {
    status: response.status,
    type,
    ...(method === 'HEAD' ? { head: true } : {}),
    ...((request.query?.format ?? 'events') === 'events' ? {} : { otherFormat: true }),
  };
  if (method === 'HEAD') {
    await response.body?.cancel();
  } else if (type.startsWith('text/event-stream') || type.startsWith('application/x-ndjson')) {
    const first = await firstUnit(response, type.startsWith('text/event-stream') ? '\n\n' : '\n');
    if (type.startsWith('text/event-stream')) {
      const data = first
        .split('\n')
        .filter((line) => line.startsWith('data:'))
        .map((line) => line.slice(5).trimStart())
        .join('\n');
      if (data !== '' && data !== '[DONE]') parse(answer, data);
    } else if (first.trim() !== '') {
      parse(answer, first);
    }
  } else if (type.startsWith('application/json')) {
    parse(answer, await response.text());
  } else {
    await response.body?.cancel();
  }
  return answer;
}

function parse(answer: Answer, text: string): void {
  try {
    answer.json = JSON.parse(text);
  } catch {
    answer.unreadable = `not JSON: ${text.slice(0, 80)}`;
  }
}

/** The stream's first frame (SSE: up to a blank line that ends one with data) or line, then the stream is let go. */
async function firstUnit(response: Response, end: string): Promise<string> {
  const reader = response.body!.getReader();
  const decoder = new TextDecoder();
  let text = '';
  try {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) return text;
      text += decoder.decode(value, { stream: true });
      for (const unit of text.split(end).slice(0, -1)) {
        if (end === '\n' ? unit.trim() !== '' : /^data:/m.test(unit)) return unit;
      }
    }
  } finally {
    await reader.cancel().catch(() => undefined);
  }
}

/** What is wrong with `answer` as an answer of `route`, or undefined when the route declares it. */
function mismatch(key: RouteKey, route: RouteDeclaration, answer: Answer): string | undefined {
  if (answer.unreadable) return `${answer.status} ${answer.type}: ${answer.unreadable}`;
  // Every route may answer it, as a bug: a server that failed everything would otherwise pass.
  if (answer.status >= 500 && (answer.json as { error?: { code?: string } })?.error?.code === 'internal_error') {
    return `${answer.status} internal_error: ${JSON.stringify(answer.json).slice(0, 200)}`;
  }
  const declared = (route.answers as Record<number, RouteAnswer>)[answer.status];
  if (declared !== undefined) {
    if (answer.head) return undefined;
    if (answer.type.startsWith('application/json')) {
      if (declared.json === undefined) return `${answer.status} is JSON, which the route does not declare`;
      return invalid(declared.json.schema, answer.json, `${answer.status} ${declared.json.name}`);
    }
    // The frames' schema is the default format's; the others are described in docs/events.md.
    if (
      answer.type.startsWith('text/event-stream') &&
      declared.frames &&
      answer.json !== undefined &&
      !answer.otherFormat
    ) {
      return invalid(declared.frames.schema, answer.json, `${answer.status} frame ${declared.frames.name}`);
    }
    const media = answer.type.split(';')[0]!;
    if (answer.type !== '' && !declared.media?.some((kind) => kind === media || kind === 'any')) {
      return `${answer.status} answers ${media}, which the route does not declare`;
    }
    return undefined;
  }
  const refusals = routeRefusals(key, route);
  if (answer.head) {
    return refusals.some((refusal) => refusal.status === answer.status)
      ? undefined
      : `HEAD answered ${answer.status}, which the route declares for no refusal`;
  }
  const error = ErrorBodySchema.safeParse(answer.json);
  if (!error.success) return `${answer.status} without the error body: ${JSON.stringify(answer.json)?.slice(0, 120)}`;
  const { code } = error.data.error;
  if (!refusals.some((refusal) => refusal.code === code && refusal.status === answer.status)) {
    return `${answer.status} ${code} is not declared (it declares ${refusals.map((r) => `${r.status} ${r.code}`).join(', ')})`;
  }
  return undefined;
}

function invalid(schema: z.ZodType, value: unknown, what: string): string | undefined {
  const parsed = schema.safeParse(value);
  return parsed.success
    ? undefined
    : `${what} does not validate: ${parsed.error.issues[0]?.message} at ${parsed.error.issues[0]?.path.join('.')}`;
}

/** Starts a batch of one pair and waits for it to end; its id. */
async function endedRollout(bridge: TestBridge): Promise<string> {
  const started = await bridge.fetch('/v1/rollouts', {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify(ROLLOUT),
  });
  const answer = (await started.json()) as { rollout_id: string };
  if (started.status !== 202)
    throw new Error(`POST /v1/rollouts answered ${started.status}: ${JSON.stringify(answer)}`);
  const id = answer.rollout_id;
  await eventually(async () => {
    const snapshot = (await (await bridge.fetch(`/v1/rollouts/${id}`)).json()) as { status: string };
    return snapshot.status === 'completed';
  }, `batch ${id} to complete`);
  return id;
}

async function endedRun(bridge: TestBridge): Promise<{ id: string; lastSeq: number }> {
  const id = await bridge.startRun({ env: 'arith', model: 'offline' });
  const events = await bridge.readEvents(id);
  return { id, lastSeq: events.at(-1)!.seq };
}

/** Fuzzes every route against a bridge that `start` makes, with `settings` on top of the probes' own. */
/** Takes the store away and gives it back (Redis killed and started again). */
interface Outage {
  down(): Promise<void>;
  up(): Promise<void>;
}

function fuzzEveryRoute(
  store: string,
  start: (settings: Record<string, string>) => Promise<TestBridge>,
  stop: () => Promise<void>,
  outage?: Outage,
) {
  describe(`every route of the table, on the ${store} store`, () => {
    let bridge: TestBridge;
    let fixtures: Fixtures;
    beforeAll(async () => {
      bridge = await start(SETTINGS);
      const run = await endedRun(bridge);
      const liveRunId = await bridge.startRun({ env: 'arith', model: 'offline', approval: { tools: '*' } });
      await eventually(async () => {
        const snapshot = (await (await bridge.fetch(`/v1/runs/${liveRunId}`)).json()) as { status: string };
        return snapshot.status === 'requires_action';
      }, `run ${liveRunId} to wait for a decision`);
      fixtures = {
        runId: run.id,
        lastSeq: run.lastSeq,
        liveRunId,
        uiFile: /\/ui\/([\w.-]+\.js)/.exec(await (await bridge.fetch('/')).text())?.[1],
        doomedRunId: (await endedRun(bridge)).id,
        rolloutId: await endedRollout(bridge),
        doomedRolloutId: await endedRollout(bridge),
      };
    }, 60_000);
    afterAll(async () => {
      await bridge?.shutdown();
      await stop();
    });

    for (const [key, route] of Object.entries(ROUTE_TABLE) as Array<[BridgeRouteKey, RouteDeclaration]>) {
      it(`${key} answers only what it declares`, async () => {
        const found: string[] = [];
        for (const probe of probesOf(key, route, fixtures)) {
          const answer = await send(bridge, key, probe);
          const wrong = mismatch(key, route, answer);
          if (wrong) found.push(`${probe.name}: ${wrong}`);
          if (probe.withoutKey && route.access !== 'public' && answer.status !== 401) {
            found.push(`no key: answered ${answer.status}, not 401`);
          }
          if (probe.name.startsWith('a good request')) {
            const { code, message } =
              (answer.json as { error?: { code?: string; message?: string } } | undefined)?.error ?? {};
            const expected = probe.request.refusedWith;
            const answered = expected === undefined ? answer.status in route.answers : code === expected;
            if (!answered) {
              found.push(
                `${probe.name}: answered ${answer.status} ${code ?? ''} (${message}), not ${expected ?? 'a success'}`,
              );
            }
          }
        }
        expect(found).toEqual([]);
      }, 60_000);
    }

    if (outage) {
      it('answers only what each route declares while the store is down', async () => {
        const found: string[] = [];
        const unavailable: string[] = [];
        await outage.down();
        try {
          for (const [key, route] of Object.entries(ROUTE_TABLE) as Array<[BridgeRouteKey, RouteDeclaration]>) {
            const answer = await send(bridge, key, { name: 'store down', request: GOOD[key](fixtures) });
            const wrong = mismatch(key, route, answer);
            if (wrong) found.push(`${key}: ${wrong}`);
            if ((answer.json as { error?: { code?: string } })?.error?.code === 'store_unavailable')
              unavailable.push(key);
          }
        } finally {
          await outage.up();
        }
        expect(found).toEqual([]);
        // The outage was real: what needs the store said so.
        expect(unavailable).toEqual(expect.arrayContaining(['GET /v1/runs', 'GET /v1/runs/:id', 'GET /health']));
      }, 120_000);
    }
  });
}

fuzzEveryRoute(
  'memory',
  (settings) => startTestBridge(settings, { apiKey: KEY }),
  async () => undefined,
);

let redis: TestRedis | undefined;
fuzzEveryRoute(
  'Redis',
  async (settings) => {
    redis = await startTestRedis();
    return startTestBridge(
      {
        ...settings,
        RUNBRIDGE_REDIS_URL: redis.url,
        RUNBRIDGE_REDIS_PREFIX: redis.prefix(),
        RUNBRIDGE_REDIS_COMMAND_TIMEOUT_SECONDS: '0.5',
      },
      { apiKey: KEY },
    );
  },
  async () => redis?.stop(),
  { down: () => redis!.kill(), up: () => redis!.start() },
);

describe('the routes mounted only under a setting', () => {
  let bridge: TestBridge;
  beforeAll(async () => {
    bridge = await startTestBridge({ RUNBRIDGE_METRICS: '0', RUNBRIDGE_UI: '0' });
  });
  afterAll(() => bridge?.shutdown());

  it('are 404 not_found, with the error body, once their setting turns them off', async () => {
    const unmounted = (Object.entries(ROUTE_TABLE) as Array<[BridgeRouteKey, RouteDeclaration]>).filter(
      ([, route]) => route.mountedUnless !== undefined,
    );
    expect(unmounted.map(([key]) => key)).toEqual(['GET /metrics', 'GET /', 'GET /ui/:file']);
    for (const [key] of unmounted) {
      const answer = await send(bridge, key, { name: 'unmounted', request: GOOD[key]({} as Fixtures) });
      expect({ key, status: answer.status, body: ErrorBodySchema.safeParse(answer.json).data?.error.code }).toEqual({
        key,
        status: 404,
        body: 'not_found',
      });
    }
  });
});
