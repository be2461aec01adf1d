import type Router from 'koa-router';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { builtinEnvironments } from '../../adapters/environments/builtin-environments.js';
import { createOfflineProvider } from '../../adapters/models/offline/offline-provider.js';
import { loadConfig } from '../../src/config/index.js';
import { Authenticator } from '../../src/http/authenticate.js';
import { createApp } from '../../src/http/create-app.js';
import { MetricsAccess } from '../../src/http/metrics-access.js';
import { StreamSlots } from '../../src/http/stream-slots.js';
import { UiAssets } from '../../src/http/ui-assets.js';
import { ModelCatalog } from '../../src/models/model-catalog.js';
import { ModelRegistry } from '../../src/models/model-registry.js';
import { OrsClient } from '../../src/ors/client/ors-client.js';
import { ERROR_CODE_NAMES } from '../../src/protocol/error-codes.js';
import type { RunEvent } from '../../src/protocol/run-events.js';
import { DEFAULT_WAIT_SECONDS, RUN_REQUEST_DEFAULTS } from '../../src/protocol/run-request.js';
import { RolloutService } from '../../src/rollouts/rollout-service.js';
import { EnvCatalog } from '../../src/runs/env-catalog.js';
import { RunRegistry } from '../../src/runs/run-registry.js';
import { MemoryRolloutStore } from '../../src/store/memory/memory-rollout-store.js';
import { MemoryRunStore } from '../../src/store/memory/memory-run-store.js';
import { storeLimits } from '../../src/store/open-run-store.js';
import { createTelemetry } from '../../src/telemetry/create-telemetry.js';
import { silentLogger } from '../../src/telemetry/logger.js';
import { eventually } from '../support/eventually.js';
import { probeEnvironment } from '../support/probe-environment.js';
import { scriptedProvider } from '../support/scripted-model.js';
import { startTestBridge, type TestBridge } from '../support/start-test-bridge.js';

const json = { 'Content-Type': 'application/json' };

type JsonSchema = z.core.JSONSchema.JSONSchema;

interface OpenApi {
  openapi: string;
  paths: Record<string, Record<string, unknown>>;
  components: { schemas: Record<string, JsonSchema> };
}

/** A validator for one component of the document, built from the served JSON Schema (not from our zod). */
function componentValidator(document: OpenApi, name: string): z.ZodType {
  const defs = JSON.parse(
    JSON.stringify(document.components.schemas).replaceAll('#/components/schemas/', '#/$defs/'),
  ) as Record<string, JsonSchema>;
  return z.fromJSONSchema({ $ref: `#/$defs/${name}`, $defs: defs });
}

/** Every `METHOD /path` the bridge's Koa app routes, with OpenAPI's `{param}` spelling. */
async function appRoutes(): Promise<string[]> {
  const config = loadConfig({});
  const store = new MemoryRunStore(storeLimits(config));
  const registry = new RunRegistry({
    ors: new OrsClient({ baseUrl: 'http://127.0.0.1:9' }),
    models: new ModelRegistry([createOfflineProvider()], 'offline'),
    store,
    streams: store.streams,
    catalog: new EnvCatalog(new OrsClient({ baseUrl: 'http://127.0.0.1:9' })),
    sweepMs: config.sweepMs,
    limits: { maxConcurrentRuns: 1, maxEventsPerRun: 10, runTimeoutMs: 1000, toolOutputEventChars: 10 },
  });
  const rollouts = new RolloutService({
    registry,
    ors: new OrsClient({ baseUrl: 'http://127.0.0.1:9' }),
    models: new ModelRegistry([createOfflineProvider()], 'offline'),
    store: new MemoryRolloutStore(),
    maxPairs: config.maxQueuedRuns,
    retentionMs: config.retentionMs,
    sweepMs: config.sweepMs,
    log: silentLogger,
  });
  try {
    const app = createApp({
      registry,
      rollouts,
      models: new ModelCatalog(new ModelRegistry([createOfflineProvider()], 'offline'), {
        maxModels: 10,
        maxBytes: 1000,
      }),
      authenticator: new Authenticator([]),
      environments: { list: async () => [], health: async () => ({ status: 'ok' }), defaultEnv: async () => 'arith' },
      ui: new UiAssets(),
      streams: new StreamSlots({ maxStreams: 10, maxStreamsPerKey: 10 }),
      config: { ...config, store: 'memory', instance: undefined },
      shutdownSignal: new AbortController().signal,
      now: Date.now,
      // Metrics on, so that `/metrics` is routed too.
      telemetry: createTelemetry({ logger: silentLogger, metrics: true, tracing: undefined }),
      metricsAccess: new MetricsAccess(undefined, []),
    });
    const routers = app.middleware.flatMap((middleware) => {
      const router = (middleware as { router?: Router }).router;
      return router ? [router] : [];
    });
    return routers.flatMap((router) =>
      router.stack.flatMap((layer) =>
        layer.methods
          .filter((method) => method !== 'HEAD')
          .map((method) => `${method} ${layer.path.replace(/:(\w+)/g, '{$1}')}`),
      ),
    );
  } finally {
    await rollouts.stop();
    await registry.shutdown(0);
  }
}

describe('GET /v1/openapi.json', () => {
  let bridge: TestBridge;
  let document: OpenApi;

  beforeAll(async () => {
    bridge = await startTestBridge();
    const response = await fetch(`${bridge.url}/v1/openapi.json`);
    expect(response.status).toBe(200);
    document = (await response.json()) as OpenApi;
  });
  afterAll(() => bridge.shutdown());

  it('is an OpenAPI 3.1 document of exactly the routes the server has', async () => {
    expect(document.openapi).toBe('3.1.0');
    const documented = Object.entries(document.paths).flatMap(([path, item]) =>
      Object.keys(item)
        .filter((key) => key !== 'parameters')
        .map((method) => `${method.toUpperCase()} ${path}`),
    );
    expect(documented.sort()).toEqual((await appRoutes()).sort());
  });

  it('describes the answers with schemas that accept what the server really answers', async () => {
    const validators = new Map<string, z.ZodType>();
    const check = (name: string, value: unknown) => {
      if (!validators.has(name)) validators.set(name, componentValidator(document, name));
      expect(validators.get(name)!.safeParse(value).error).toBeUndefined();
    };
    check('Health', await (await bridge.fetch('/health')).json());
    check('ModelList', await (await bridge.fetch('/v1/models')).json());
    check('EnvironmentList', await (await bridge.fetch('/v1/environments')).json());
    const created = await (
      await bridge.fetch('/v1/runs', { method: 'POST', headers: json, body: JSON.stringify({ env: 'arith' }) })
    ).json();
    check('RunCreated', created);
    const runId = (created as { run_id: string }).run_id;
    await bridge.readEvents(runId);
    check('RunSnapshot', await (await bridge.fetch(`/v1/runs/${runId}`)).json());
    check('RunList', await (await bridge.fetch('/v1/runs')).json());
    check(
      'EventsPage',
      await (await bridge.fetch(`/v1/runs/${runId}/events`, { headers: { Accept: 'application/json' } })).json(),
    );
    check(
      'CancelAnswer',
      await (
        await bridge.fetch(`/v1/runs/${runId}/cancel`, {
          method: 'POST',
          headers: { 'Content-Type': 'application/json' },
        })
      ).json(),
    );
    check(
      'StreamTokenAnswer',
      await (
        await bridge.fetch(`/v1/runs/${runId}/stream-token`, {
          method: 'POST',
          headers: { 'Content-Type': 'application/json' },
        })
      ).json(),
    );
    check('ErrorBody', await (await bridge.fetch('/v1/runs/run_missing')).json());
    const chat = await bridge.fetch('/v1/chat/completions', {
      method: 'POST',
      headers: json,
      body: JSON.stringify({ env: 'arith', messages: [{ role: 'user', content: 'hi' }] }),
    });
    check('ChatCompletion', await chat.json());
    const chunks = await (await bridge.fetch(`/v1/runs/${runId}/events?format=openai&agent_events=1`)).text();
    for (const line of chunks.split('\n').filter((candidate) => candidate.startsWith('data: {')))
      check('ChatCompletionChunk', JSON.parse(line.slice(6)));
  });

  it("lists the codes of the error table, and only those, as the enum of an error body's code", () => {
    const error = document.components.schemas.ErrorBody!.properties!.error as JsonSchema;
    expect((error.properties!.code as JsonSchema).enum).toEqual(ERROR_CODE_NAMES);
  });

  it('describes the request bodies with the schemas the server validates them with', () => {
    const runRequest = componentValidator(document, 'RunRequest');
    expect(runRequest.safeParse({ env: 'arith', task: { split: 'train', index: 0 }, max_turns: 3 }).success).toBe(true);
    expect(runRequest.safeParse({ env: 'arith', colour: 'blue' }).success).toBe(false);
    const chatRequest = componentValidator(document, 'ChatCompletionRequest');
    expect(
      chatRequest.safeParse({ model: 'offline', messages: [{ role: 'user', content: 'hi' }], stream: true }).success,
    ).toBe(true);
    expect(chatRequest.safeParse({ messages: [{ role: 'user', content: 'hi' }], tools: [] }).success).toBe(false);
  });

  it('shows every default of a run request, on fields a client may leave out', () => {
    const runRequest = document.components.schemas.RunRequest as {
      required?: string[];
      properties: Record<string, { default?: unknown; properties?: Record<string, { default?: unknown }> }>;
    };
    expect(runRequest.required ?? []).toEqual([]);
    const { properties } = runRequest;
    expect(properties.max_turns?.default).toBe(RUN_REQUEST_DEFAULTS.max_turns);
    expect(properties.reward_reduction?.default).toBe('last');
    expect(properties.await_input?.default).toBe(false);
    expect(properties.input_timeout_seconds?.default).toBe(DEFAULT_WAIT_SECONDS);
    expect(properties.approval?.properties?.timeout_seconds?.default).toBe(DEFAULT_WAIT_SECONDS);
    expect(properties.approval?.properties?.on_timeout?.default).toBe('deny');
  });

  it("takes the query parameters from the routes' own query schemas", () => {
    const names = (path: string, method: string) =>
      ((document.paths[path]![method] as { parameters: Array<{ name: string; in: string }> }).parameters ?? []).map(
        (parameter) => `${parameter.in}:${parameter.name}`,
      );
    expect(names('/v1/runs', 'get')).toEqual(['query:status', 'query:limit', 'query:after']);
    expect(names('/v1/runs/{id}/events', 'get')).toEqual(
      expect.arrayContaining([
        'query:format',
        'query:after',
        'query:limit',
        'query:agent_events',
        'header:Last-Event-ID',
      ]),
    );
  });
});

describe('GET /v1/schema/events', () => {
  let bridge: TestBridge;

  beforeAll(async () => {
    // A short progress period, so the probe's 50 ms sleep reports tool.progress.
    bridge = await startTestBridge(
      { RUNBRIDGE_TOOL_PROGRESS_SECONDS: '0.01' },
      {
        environments: [...builtinEnvironments, probeEnvironment],
        providers: [
          scriptedProvider({
            hang: [{ hang: true }],
            broken: [{ error: new Error('a bug') }],
            sleepy: [{ toolCalls: [{ name: 'sleep', arguments: '{"ms":50}' }] }],
            asks: [{ toolCalls: [{ name: 'echo', arguments: '{"text":"x"}' }] }, { text: 'Echoed.' }],
          }),
        ],
      },
    );
  });
  afterAll(() => bridge.shutdown());

  it('is a JSON Schema with one definition per event type, open to every client', async () => {
    const schema = (await (await fetch(`${bridge.url}/v1/schema/events`)).json()) as {
      $schema: string;
      oneOf: unknown[];
      $defs: Record<string, unknown>;
    };
    expect(schema.$schema).toBe('https://json-schema.org/draft/2020-12/schema');
    expect(Object.keys(schema.$defs).sort()).toEqual([
      'message.delta',
      'message.dropped',
      'message.received',
      'prompt.available',
      'reasoning.available',
      'reasoning.delta',
      'run.awaiting_input',
      'run.cancelled',
      'run.completed',
      'run.failed',
      'run.started',
      'tool.approval_required',
      'tool.approval_resolved',
      'tool.arguments.delta',
      'tool.completed',
      'tool.progress',
      'tool.started',
      'turn.completed',
    ]);
    expect(schema.oneOf).toHaveLength(18);
  });

  it('accepts every event of real runs that complete, fail and are cancelled, and refuses malformed ones', async () => {
    const validator = z.fromJSONSchema((await (await fetch(`${bridge.url}/v1/schema/events`)).json()) as JsonSchema);
    const events: RunEvent[] = [];
    for (const env of ['arith', 'workspace']) events.push(...(await bridge.readEvents(await bridge.startRun({ env }))));
    events.push(...(await bridge.readEvents(await bridge.startRun({ env: 'arith', model: 'scripted:broken' }))));
    events.push(...(await bridge.readEvents(await bridge.startRun({ env: 'probe', model: 'scripted:sleepy' }))));
    const hanging = await bridge.startRun({ env: 'arith', model: 'scripted:hang' });
    await bridge.fetch(`/v1/runs/${hanging}/cancel`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
    });
    events.push(...(await bridge.readEvents(hanging)));
    expect(new Set(events.map((event) => event.event))).toEqual(
      new Set([
        'run.started',
        'prompt.available',
        'message.delta',
        'reasoning.delta',
        'reasoning.available',
        'tool.arguments.delta',
        'tool.started',
        'tool.progress',
        'tool.completed',
        'turn.completed',
        'run.completed',
        'run.failed',
        'run.cancelled',
      ]),
    );
    for (const event of events) expect(validator.safeParse(event).error).toBeUndefined();
    expect(validator.safeParse({ event: 'run.failed', seq: 1, run_id: 'run_x', timestamp: 1 }).success).toBe(false);
    expect(
      validator.safeParse({
        event: 'tool.started',
        seq: -1,
        run_id: 'run_x',
        timestamp: 1,
        tool: 't',
        tool_call_id: 'c',
        arguments: {},
        preview: '',
        turn: 1,
        call_index: 0,
      }).success,
    ).toBe(false);
    expect(validator.safeParse({ event: 'run.exploded', seq: 1, run_id: 'run_x', timestamp: 1 }).success).toBe(false);
  });

  it('accepts the events of a person in the loop, and the OpenAPI schemas accept its routes’ bodies and answers', async () => {
    const events = (await (await fetch(`${bridge.url}/v1/schema/events`)).json()) as JsonSchema;
    const validator = z.fromJSONSchema(events);
    const document = (await (await fetch(`${bridge.url}/v1/openapi.json`)).json()) as OpenApi;
    const runId = await bridge.startRun({
      env: 'probe',
      model: 'scripted:asks',
      approval: { tools: ['echo'] },
      await_input: true,
      input_timeout_seconds: 0.2,
    });
    const snapshot = await eventually(async () => {
      const read: unknown = await (await bridge.fetch(`/v1/runs/${runId}`)).json();
      return (read as { status: string }).status === 'requires_action' && read;
    }, 'the run to wait for a decision');
    expect(componentValidator(document, 'RunSnapshot').safeParse(snapshot).error).toBeUndefined();
    const [pending] = (snapshot as { pending_approvals: Array<{ approval_id: string }> }).pending_approvals;
    const list = (await (await bridge.fetch('/v1/runs?limit=1')).json()) as {
      data: Array<{ pending_approvals: Array<Record<string, unknown>> }>;
    };
    expect(componentValidator(document, 'RunList').safeParse(list).error).toBeUndefined();
    expect(list.data[0]?.pending_approvals[0]).toMatchObject({
      approval_id: pending!.approval_id,
      arguments_preview: expect.any(String),
      arguments_truncated: false,
    });
    expect(list.data[0]?.pending_approvals[0]).not.toHaveProperty('arguments');
    const decision = { decision: 'approve', arguments: { text: 'y' } };
    expect(componentValidator(document, 'DecisionRequest').safeParse(decision).success).toBe(true);
    expect(componentValidator(document, 'DecisionRequest').safeParse({ decision: 'maybe' }).success).toBe(false);
    const resolved = await bridge.fetch(`/v1/runs/${runId}/approvals/${pending!.approval_id}`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify(decision),
    });
    expect(componentValidator(document, 'ApprovalResolved').safeParse(await resolved.json()).error).toBeUndefined();
    await eventually(
      async () =>
        ((await (await bridge.fetch(`/v1/runs/${runId}`)).json()) as { status: string }).status === 'awaiting_input',
      'the run to wait for input',
    );
    const message = { content: 'Go on.' };
    expect(componentValidator(document, 'MessageRequest').safeParse(message).success).toBe(true);
    expect(componentValidator(document, 'MessageRequest').safeParse({ content: 3 }).success).toBe(false);
    const accepted = await bridge.fetch(`/v1/runs/${runId}/messages`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify(message),
    });
    expect(componentValidator(document, 'MessageAccepted').safeParse(await accepted.json()).error).toBeUndefined();

    const log = await bridge.readEvents(runId);
    const types = new Set(log.map((event) => event.event));
    for (const type of ['tool.approval_required', 'tool.approval_resolved', 'message.received', 'run.awaiting_input'])
      expect(types).toContain(type);
    for (const event of log) expect(validator.safeParse(event).error).toBeUndefined();
  });
});
