import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../src/config/index.js';
import { ModelError } from '../../src/errors.js';
import type { ModelPart } from '../../src/models/model.js';
import type { RunEvent } from '../../src/protocol/run-events.js';
import type { RunSnapshot } from '../../src/protocol/run-snapshot.js';
import { eventually } from '../support/eventually.js';
import { readScrape } from '../support/read-scrape.js';
import { startRollout } from '../support/rollout-client.js';
import { scriptedProvider, singleModelProvider } from '../support/scripted-model.js';
import { startTestBridge, useTestBridge } from '../support/start-test-bridge.js';

/** `GET /metrics` (docs/operations.md#metrics), read with a real Prometheus text parser. */

const API_KEY = 'key-1-0123456789abcdef';
const METRICS_TOKEN = 'scrape-0123456789abcdef';
const json = { 'Content-Type': 'application/json' };

describe('GET /metrics', () => {
  let entered: () => void;
  const inModelCall = new Promise<void>((resolve) => {
    entered = resolve;
  });

  const bridge = useTestBridge(
    { RUNBRIDGE_API_KEYS: API_KEY, RUNBRIDGE_METRICS_TOKEN: METRICS_TOKEN },
    {
      apiKey: API_KEY,
      providers: [
        scriptedProvider({
          down: [{ error: new ModelError('The provider is down.', { code: 'model_unavailable' }) }],
        }),
        // A model call that lasts until the run is cancelled, and says when it has begun.
        singleModelProvider('hanging', async function* (request): AsyncGenerator<ModelPart> {
          entered();
          await new Promise((_resolve, reject) =>
            request.signal.addEventListener('abort', () => reject(request.signal.reason), { once: true }),
          );
        }),
      ],
    },
  );

  const scrape = async (authorization?: string) =>
    fetch(`${bridge.url}/metrics`, authorization === undefined ? {} : { headers: { Authorization: authorization } });

  it("takes the metrics token alone: an API key, whose tenant must not read the others' model names, is refused", async () => {
    expect((await scrape()).status).toBe(401);
    expect((await scrape('Bearer not-a-key-0123456789')).status).toBe(401);
    const byKey = await scrape(`Bearer ${API_KEY}`);
    expect(byKey.status).toBe(401);
    expect(await byKey.json()).toMatchObject({ error: { code: 'unauthorized' } });
    const answer = await scrape(`Bearer ${METRICS_TOKEN}`);
    expect(answer.status).toBe(200);
    expect(answer.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
  });

  it('counts runs that complete, fail and are cancelled, and what they did', async () => {
    const completedId = await bridge.startRun({ env: 'arith' });
    const completedEvents = await bridge.readEvents(completedId);
    const completed = (await (await bridge.fetch(`/v1/runs/${completedId}`)).json()) as RunSnapshot;
    const failedId = await bridge.startRun({ env: 'arith', model: 'scripted:down' });
    await bridge.readEvents(failedId);

    const cancelledId = await bridge.startRun({ env: 'arith', model: 'hanging' });
    await inModelCall;
    const stream = await bridge.fetch(`/v1/runs/${cancelledId}/events?format=openai`);
    const during = readScrape(await (await scrape(`Bearer ${METRICS_TOKEN}`)).text());
    expect(during.value('runbridge_runs_running')).toBe(1);
    expect(during.value('runbridge_event_streams_open', { format: 'openai' })).toBe(1);
    await bridge.fetch(`/v1/runs/${cancelledId}/cancel`, { method: 'POST', headers: json, body: '{}' });
    await stream.text();
    const cancelledEvents = await bridge.readEvents(cancelledId);
    expect(cancelledEvents.at(-1)?.event).toBe('run.cancelled');

    const metrics = readScrape(await (await scrape(`Bearer ${METRICS_TOKEN}`)).text());
    const { families } = metrics;
    expect(metrics.value('runbridge_runs_started_total', { env: 'arith' })).toBe(3);
    for (const status of ['completed', 'failed', 'cancelled']) {
      expect(metrics.value('runbridge_runs_finished_total', { env: 'arith', status })).toBe(1);
    }
    expect(metrics.value('runbridge_runs_running')).toBe(0);
    expect(metrics.value('runbridge_runs_queued')).toBe(0);
    expect(metrics.value('runbridge_event_streams_open', { format: 'openai' })).toBe(0);
    expect(metrics.value('runbridge_approvals_pending')).toBe(0);
    expect(metrics.value('runbridge_model_errors_total', { provider: 'scripted', code: 'model_unavailable' })).toBe(1);
    expect(families.find((family) => family.name === 'runbridge_model_errors_total')?.metrics).toHaveLength(1);

    // Every model call: the completed run's turns, the failed one, and the one the cancel cut short.
    expect(metrics.value('runbridge_model_call_duration_seconds_count', { provider: 'offline' })).toBe(completed.turns);
    expect(metrics.value('runbridge_model_call_duration_seconds_count', { provider: 'scripted' })).toBe(1);
    expect(metrics.value('runbridge_model_call_duration_seconds_count', { provider: 'hanging' })).toBe(1);
    expect(metrics.value('runbridge_turn_duration_seconds_count')).toBe(completed.turns + 2);
    const toolCalls = completedEvents.filter((event: RunEvent) => event.event === 'tool.completed').length;
    expect(metrics.value('runbridge_tool_call_duration_seconds_count', { env: 'arith' })).toBe(toolCalls);
    expect(families.find((family) => family.name === 'runbridge_ors_errors_total')?.metrics ?? []).toEqual([]);

    // The OpenTelemetry GenAI client metrics, under their Prometheus names.
    const offline = { gen_ai_operation_name: 'chat', gen_ai_provider_name: 'offline', gen_ai_request_model: 'offline' };
    expect(metrics.value('gen_ai_client_operation_duration_seconds_count', offline)).toBe(completed.turns);
    expect(
      metrics.value('gen_ai_client_operation_duration_seconds_count', {
        gen_ai_operation_name: 'chat',
        gen_ai_provider_name: 'scripted',
        gen_ai_request_model: 'down',
        error_type: 'model_unavailable',
      }),
    ).toBe(1);
    expect(metrics.value('gen_ai_client_token_usage_sum', { ...offline, gen_ai_token_type: 'input' })).toBe(
      completed.usage.input_tokens,
    );
    expect(metrics.value('gen_ai_client_token_usage_sum', { ...offline, gen_ai_token_type: 'output' })).toBe(
      completed.usage.output_tokens,
    );

    // Node's own process and event-loop metrics ride along; the shared queue says it is cluster-wide.
    expect(metrics.value('process_cpu_user_seconds_total')).toBeGreaterThan(0);
    expect(families.some((family) => family.name === 'nodejs_eventloop_lag_seconds')).toBe(true);
    expect(families.find((family) => family.name === 'runbridge_runs_queued')?.help).toMatch(/cluster-wide/i);
  });
});

describe('GET /metrics and the records streams of rollout batches', () => {
  const bridge = useTestBridge(
    { RUNBRIDGE_API_KEYS: API_KEY, RUNBRIDGE_METRICS_TOKEN: METRICS_TOKEN },
    {
      apiKey: API_KEY,
      providers: [
        // Pairs that play until their batch is cancelled: the batch stays open while it is scraped.
        singleModelProvider('hanging', async function* (request): AsyncGenerator<ModelPart> {
          await new Promise((_resolve, reject) =>
            request.signal.addEventListener('abort', () => reject(request.signal.reason), { once: true }),
          );
        }),
      ],
    },
  );
  const scrape = async () =>
    readScrape(
      await (await fetch(`${bridge.url}/metrics`, { headers: { Authorization: `Bearer ${METRICS_TOKEN}` } })).text(),
    );

  it('counts a records stream among the open streams while it holds its stream slot', async () => {
    const id = await startRollout(bridge.fetch, {
      env: 'arith',
      split: 'train',
      tasks: '0:2',
      samples: 1,
      model: 'hanging',
    });
    const stream = await bridge.fetch(`/v1/rollouts/${id}/records`, { headers: { Accept: 'text/event-stream' } });
    try {
      expect(stream.status).toBe(200);
      expect((await scrape()).value('runbridge_event_streams_open', { format: 'rollout-records' })).toBe(1);
    } finally {
      // Cancelling ends the batch and so its stream, whatever the scrape said: the bridge can then stop.
      await bridge.fetch(`/v1/rollouts/${id}/cancel`, { method: 'POST', headers: json, body: '{}' });
      await stream.text();
    }
    await eventually(
      async () => (await scrape()).value('runbridge_event_streams_open', { format: 'rollout-records' }) === 0,
      'the ended records stream counted out',
    );
  });
});

describe('GET /metrics with API keys and no RUNBRIDGE_METRICS_TOKEN', () => {
  const bridge = useTestBridge({ RUNBRIDGE_API_KEYS: API_KEY }, { apiKey: API_KEY });

  it('is refused to every caller, saying which token to set', async () => {
    const answer = await bridge.fetch('/metrics');
    expect(answer.status).toBe(401);
    const body = (await answer.json()) as { error: { code: string; message: string } };
    expect(body.error.code).toBe('unauthorized');
    expect(body.error.message).toContain('RUNBRIDGE_METRICS_TOKEN');
  });
});

describe('a RUNBRIDGE_METRICS_TOKEN that is also an API key', () => {
  it("stops start-up: the scraper's token must not be a tenant's key", async () => {
    const refused = await startTestBridge({
      RUNBRIDGE_API_KEYS: `${API_KEY},other-key-0123456789`,
      RUNBRIDGE_METRICS_TOKEN: API_KEY,
    }).then(
      (started) => started.shutdown(),
      (error: unknown) => error,
    );
    expect(refused).toBeInstanceOf(ConfigError);
    expect((refused as ConfigError).message).toMatch(/RUNBRIDGE_METRICS_TOKEN/);
  });
});

describe('GET /metrics with RUNBRIDGE_METRICS=0', () => {
  it('is not there', async () => {
    const bridge = await startTestBridge({ RUNBRIDGE_METRICS: '0' });
    try {
      expect((await bridge.fetch('/metrics')).status).toBe(404);
    } finally {
      await bridge.shutdown();
    }
  });
});
