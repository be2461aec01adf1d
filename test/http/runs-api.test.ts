import { describe, expect, it } from 'vitest';
import type { RunEvent } from '../../src/protocol/run-events.js';
import { RunSnapshotSchema } from '../../src/protocol/run-snapshot.js';
import { assertEventOrder } from '../../src/protocol/verify-event-order.js';
import { readSseEvents } from '../../src/sse/read-sse-events.js';
import { eventually } from '../support/eventually.js';
import { probeEnvironment } from '../support/probe-environment.js';
import { scriptedProvider } from '../support/scripted-model.js';
import { startTestBridge, useTestBridge } from '../support/start-test-bridge.js';

const json = { 'Content-Type': 'application/json' };

describe('the runs API with the offline model and the built-in environments', () => {
  const bridge = useTestBridge();

  it.each(['arith', 'workspace'])(
    'plays a whole %s episode: ordered events, a reward, the session deleted',
    async (env) => {
      const runId = await bridge.startRun({ env, task: { split: 'train', index: 1 } });
      const events = await bridge.readEvents(runId);
      assertEventOrder(events);
      expect(events[0]).toMatchObject({
        event: 'run.started',
        env,
        task: { split: 'train', index: 1 },
        model: 'offline',
      });
      const types = new Set(events.map((event) => event.event));
      for (const type of ['message.delta', 'reasoning.available', 'tool.started', 'tool.completed', 'turn.completed'])
        expect(types).toContain(type);
      const completed = events.at(-1)!;
      expect(completed).toMatchObject({ event: 'run.completed', reward: 1, finished: true, stop_reason: 'finished' });
      expect(events.filter((event) => event.event === 'tool.started').length).toBeGreaterThanOrEqual(2);
      expect(bridge.orsServer!.activeSessionIds()).toEqual([]);

      const snapshot = RunSnapshotSchema.parse(await (await bridge.fetch(`/v1/runs/${runId}`)).json());
      expect(snapshot).toMatchObject({
        run_id: runId,
        status: 'completed',
        env,
        reward: 1,
        finished: true,
        last_seq: completed.seq,
        error: null,
      });
      expect(snapshot.turns).toBe(completed.event === 'run.completed' ? completed.turns : -1);
    },
  );

  it('answers 202 with the run id, its events URL and a Location header', async () => {
    const response = await bridge.fetch('/v1/runs', {
      method: 'POST',
      headers: json,
      body: JSON.stringify({ env: 'arith' }),
    });
    expect(response.status).toBe(202);
    const body = (await response.json()) as { run_id: string; status: string; events_url: string; created_at: number };
    expect(body.events_url).toBe(`/v1/runs/${body.run_id}/events`);
    expect(response.headers.get('location')).toBe(`/v1/runs/${body.run_id}`);
    expect(['queued', 'running']).toContain(body.status);
    await bridge.readEvents(body.run_id);
  });

  it('gives two subscribers from the start and one that joins after the end the same log', async () => {
    const runId = await bridge.startRun({ env: 'arith', task: { split: 'test', index: 3 } });
    const [first, second] = await Promise.all([bridge.readEvents(runId), bridge.readEvents(runId)]);
    const late = await bridge.readEvents(runId);
    assertEventOrder(first);
    expect(second).toEqual(first);
    expect(late).toEqual(first);
  });

  it('serves twenty subscribers of one run at once without a listener-leak warning', async () => {
    const warnings: string[] = [];
    const onWarning = (warning: Error) => warnings.push(warning.name);
    process.on('warning', onWarning);
    try {
      const runId = await bridge.startRun({ env: 'arith', task: { split: 'test', index: 4 } });
      const logs = await Promise.all(Array.from({ length: 20 }, () => bridge.readEvents(runId)));
      for (const log of logs) expect(log).toEqual(logs[0]);
      await new Promise((resolve) => setImmediate(resolve));
      expect(warnings).not.toContain('MaxListenersExceededWarning');
    } finally {
      process.off('warning', onWarning);
    }
  });

  it('joins pieces read across many disconnects into exactly the uninterrupted log', async () => {
    const runId = await bridge.startRun({ env: 'workspace', task: { split: 'train', index: 4 } });
    const whole = await bridge.readEvents(runId);
    // Deterministic pseudo-random cut points, so a failure replays the same way.
    let seed = 42;
    const random = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
    const pieces: RunEvent[] = [];
    let cursor = -1;
    while (cursor < whole.at(-1)!.seq) {
      const response = await bridge.fetch(`/v1/runs/${runId}/events`, {
        headers: cursor < 0 ? {} : { 'Last-Event-ID': String(cursor) },
      });
      const take = 1 + Math.floor(random() * 5);
      let taken = 0;
      for await (const frame of readSseEvents(response.body!)) {
        const event = JSON.parse(frame.data) as RunEvent;
        expect(frame.id).toBe(String(event.seq));
        pieces.push(event);
        cursor = event.seq;
        if (++taken === take) break; // leaving the loop closes the connection mid-stream
      }
    }
    expect(pieces).toEqual(whole);
    const after = await bridge.fetch(`/v1/runs/${runId}/events`, { headers: { 'Last-Event-ID': String(cursor) } });
    expect(after.status).toBe(204);
  });

  it('serves the stored events as a JSON page on Accept: application/json', async () => {
    const runId = await bridge.startRun({ env: 'arith' });
    const whole = await bridge.readEvents(runId);
    const page = (await (
      await bridge.fetch(`/v1/runs/${runId}/events?after=2&limit=3`, { headers: { Accept: 'application/json' } })
    ).json()) as {
      data: RunEvent[];
      has_more: boolean;
      next_after: number | null;
    };
    expect(page.data).toEqual(whole.slice(3, 6));
    expect(page).toMatchObject({ has_more: true, next_after: 5 });
    // `format=events` names the typed events, which a page holds as well.
    const named = await bridge.fetch(`/v1/runs/${runId}/events?format=events&after=2&limit=3`, {
      headers: { Accept: 'application/json' },
    });
    expect(((await named.json()) as { data: RunEvent[] }).data).toEqual(whole.slice(3, 6));
  });

  it.each(['openai', 'combined', 'ag-ui', 'ai-sdk'])(
    'streams format=%s on Accept: application/json (the openai SDKs send it with every request): a format that is only a stream wins',
    async (format) => {
      const runId = await bridge.startRun({ env: 'arith' });
      await bridge.readEvents(runId);
      const response = await bridge.fetch(`/v1/runs/${runId}/events?format=${format}`, {
        headers: { Accept: 'application/json' },
      });
      expect(response.status).toBe(200);
      expect(response.headers.get('content-type')).toBe('text/event-stream; charset=utf-8');
      const streamed = await response.text();
      const asked = await bridge.fetch(`/v1/runs/${runId}/events?format=${format}`);
      expect(streamed).toBe(await asked.text());
    },
  );

  it('answers 400 unknown_format for an unknown format on Accept: application/json, rather than a page', async () => {
    const runId = await bridge.startRun({ env: 'arith' });
    await bridge.readEvents(runId);
    const response = await bridge.fetch(`/v1/runs/${runId}/events?format=xml`, {
      headers: { Accept: 'application/json' },
    });
    expect(response.status).toBe(400);
    expect(await response.json()).toMatchObject({ error: { code: 'unknown_format' } });
  });

  it("lists the caller's runs newest first, page by page", async () => {
    const ids = [await bridge.startRun({ env: 'arith' }), await bridge.startRun({ env: 'arith' })];
    await Promise.all(ids.map((id) => bridge.readEvents(id)));
    const first = (await (await bridge.fetch('/v1/runs?limit=1')).json()) as {
      data: Array<{ run_id: string }>;
      next: string;
    };
    expect(first.data.map((run) => run.run_id)).toEqual([ids[1]]);
    const second = (await (await bridge.fetch(`/v1/runs?limit=1&after=${first.next}`)).json()) as {
      data: Array<{ run_id: string }>;
    };
    expect(second.data.map((run) => run.run_id)).toEqual([ids[0]]);
    const completed = (await (await bridge.fetch('/v1/runs?status=completed&limit=100')).json()) as {
      data: Array<{ status: string }>;
    };
    expect(completed.data.every((run) => run.status === 'completed')).toBe(true);
  });

  it('answers 400 invalid_cursor for a list cursor naming an unknown or forgotten run, rather than an empty last page', async () => {
    const runId = await bridge.startRun({ env: 'arith' });
    await bridge.readEvents(runId);
    expect((await bridge.fetch(`/v1/runs/${runId}`, { method: 'DELETE' })).status).toBe(204);
    for (const cursor of [runId, 'run_doesnotexist']) {
      const page = await bridge.fetch(`/v1/runs?limit=1&after=${cursor}`);
      expect(page.status).toBe(400);
      expect(await page.json()).toMatchObject({
        error: {
          code: 'invalid_cursor',
          message: expect.stringMatching(/unknown or was forgotten.*Restart from the first page/),
        },
      });
    }
  });

  it('deletes a finished run and refuses to delete a live one', async () => {
    const runId = await bridge.startRun({ env: 'arith' });
    await bridge.readEvents(runId);
    expect((await bridge.fetch(`/v1/runs/${runId}`, { method: 'DELETE' })).status).toBe(204);
    expect((await bridge.fetch(`/v1/runs/${runId}`)).status).toBe(404);
  });

  it('answers the same run for a repeated Idempotency-Key and 409 for another body', async () => {
    const post = (body: object) =>
      bridge.fetch('/v1/runs', {
        method: 'POST',
        headers: { ...json, 'Idempotency-Key': 'key-1' },
        body: JSON.stringify(body),
      });
    const first = await post({ env: 'arith', metadata: { a: 1 } });
    const again = await post({ metadata: { a: 1 }, env: 'arith' });
    expect(first.status).toBe(202);
    expect(again.status).toBe(200);
    const firstId = ((await first.json()) as { run_id: string }).run_id;
    expect(((await again.json()) as { run_id: string }).run_id).toBe(firstId);
    const other = await post({ env: 'workspace' });
    expect(other.status).toBe(409);
    expect(((await other.json()) as { error: { code: string } }).error.code).toBe('idempotency_conflict');
    await bridge.readEvents(firstId);
  });

  it('answers 404 for an unknown run, environment or route, and 400 for an out-of-range task', async () => {
    const unknownRun = await bridge.fetch('/v1/runs/run_doesnotexist');
    expect(unknownRun.status).toBe(404);
    expect(await unknownRun.json()).toMatchObject({ error: { code: 'run_not_found' } });
    const unknownEnv = await bridge.fetch('/v1/runs', {
      method: 'POST',
      headers: json,
      body: JSON.stringify({ env: 'nope' }),
    });
    expect(unknownEnv.status).toBe(404);
    expect(await unknownEnv.json()).toMatchObject({ error: { code: 'unknown_env' } });
    const badTask = await bridge.fetch('/v1/runs', {
      method: 'POST',
      headers: json,
      body: JSON.stringify({ env: 'arith', task: { split: 'train', index: 10 ** 9 } }),
    });
    expect(badTask.status).toBe(400);
    expect(await badTask.json()).toMatchObject({ error: { code: 'invalid_task' } });
    expect((await bridge.fetch('/v1/nothing')).status).toBe(404);
  });

  it('answers 400 for a cursor beyond the log or an unknown format', async () => {
    const runId = await bridge.startRun({ env: 'arith' });
    const events = await bridge.readEvents(runId);
    expect((await bridge.fetch(`/v1/runs/${runId}/events?after=${events.length + 5}`)).status).toBe(400);
    expect((await bridge.fetch(`/v1/runs/${runId}/events?format=xml`)).status).toBe(400);
  });

  it('lists the models it can drive and reports health', async () => {
    const models = (await (await bridge.fetch('/v1/models')).json()) as {
      object: string;
      data: Array<{ id: string; object: string }>;
    };
    expect(models.object).toBe('list');
    expect(models.data.map((model) => model.id)).toContain('offline');
    const health = (await (await bridge.fetch('/health')).json()) as { status: string; runs: Record<string, number> };
    expect(health.status).toBe('ok');
    expect(health.runs).toHaveProperty('running');
  });
});

describe('runs that wait on slow tools', () => {
  const bridge = useTestBridge(
    { RUNBRIDGE_KEEPALIVE_SECONDS: '0.05', RUNBRIDGE_DEFAULT_ENV: 'probe' },
    {
      environments: [probeEnvironment],
      providers: [
        scriptedProvider({
          sleepy: [{ toolCalls: [{ name: 'sleep', arguments: '{"ms":300}' }] }, { text: 'rested' }],
          stuck: [{ toolCalls: [{ name: 'sleep', arguments: '{"ms":600000}' }] }],
        }),
      ],
    },
  );

  it('sends keep-alive comments while a tool is silent', async () => {
    const runId = await bridge.startRun({ model: 'scripted:sleepy' });
    const response = await bridge.fetch(`/v1/runs/${runId}/events`);
    expect(response.headers.get('content-type')).toBe('text/event-stream; charset=utf-8');
    expect(response.headers.get('cache-control')).toBe('no-cache');
    expect(response.headers.get('x-accel-buffering')).toBe('no');
    const raw = await response.text();
    // No frame without data: `retry:` rides on the first event's frame, keep-alives are lone comment lines.
    expect(raw.startsWith('retry: 3000\nid: 0\nevent: run.started\ndata: {')).toBe(true);
    const started = raw.indexOf('event: tool.started');
    const completed = raw.indexOf('event: tool.completed');
    expect(raw.slice(started, completed)).toContain('\n\n: keepalive\n');
    expect(raw).not.toContain(': keepalive\n\n');
    expect(raw).toContain('event: run.completed');
  });

  it('cancels during a slow tool: the tool completes with an error, then run.cancelled, and the session is gone', async () => {
    const runId = await bridge.startRun({ model: 'scripted:stuck' });
    const response = await bridge.fetch(`/v1/runs/${runId}/events`);
    const events: RunEvent[] = [];
    for await (const frame of readSseEvents(response.body!)) {
      const event = JSON.parse(frame.data) as RunEvent;
      events.push(event);
      if (event.event === 'tool.started') {
        const cancel = await bridge.fetch(`/v1/runs/${runId}/cancel`, {
          method: 'POST',
          headers: { 'Content-Type': 'application/json' },
        });
        expect(cancel.status).toBe(202);
        expect(await cancel.json()).toEqual({ run_id: runId, status: 'cancelled' });
      }
    }
    assertEventOrder(events);
    expect(events.at(-2)).toMatchObject({ event: 'tool.completed', tool: 'sleep', error: true });
    expect(events.at(-1)).toMatchObject({ event: 'run.cancelled', reason: 'client' });
    expect(bridge.orsServer!.activeSessionIds()).toEqual([]);
    // Cancelling again is harmless.
    const again = await bridge.fetch(`/v1/runs/${runId}/cancel`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
    });
    expect(again.status).toBe(202);
    expect(await again.json()).toEqual({ run_id: runId, status: 'cancelled' });
  });

  it('answers a cancel that came after the end with how the run ended', async () => {
    const runId = await bridge.startRun({ model: 'scripted:sleepy' });
    expect((await bridge.readEvents(runId)).at(-1)).toMatchObject({ event: 'run.completed' });
    const cancel = await bridge.fetch(`/v1/runs/${runId}/cancel`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
    });
    expect(cancel.status).toBe(202);
    expect(await cancel.json()).toEqual({ run_id: runId, status: 'completed' });
  });
});

describe('orphaned runs', () => {
  it('cancels a run nobody watches or asks about within the orphan TTL', async () => {
    const bridge = await startTestBridge(
      {
        RUNBRIDGE_ORPHAN_TTL_SECONDS: '0.2',
        RUNBRIDGE_SWEEP_SECONDS: '0.05',
        RUNBRIDGE_DEFAULT_ENV: 'probe',
        RUNBRIDGE_MODEL: 'scripted:stuck',
      },
      {
        environments: [probeEnvironment],
        providers: [scriptedProvider({ stuck: [{ toolCalls: [{ name: 'sleep', arguments: '{"ms":600000}' }] }] })],
      },
    );
    try {
      const runId = await bridge.startRun({});
      const status = await eventually(() => {
        const run = bridge.registry.localStats();
        return run.running === 0 ? run : undefined;
      }, 'the orphan to be cancelled');
      expect(status.running).toBe(0);
      const events = await bridge.readEvents(runId);
      assertEventOrder(events);
      expect(events.at(-1)).toMatchObject({ event: 'run.cancelled', reason: 'orphaned' });
      expect(bridge.orsServer!.activeSessionIds()).toEqual([]);
    } finally {
      await bridge.shutdown();
    }
  });
});

describe('limits and access', () => {
  it('queues runs past the concurrency cap and answers 429 with Retry-After when the queue is full', async () => {
    const bridge = await startTestBridge(
      {
        RUNBRIDGE_MAX_CONCURRENT_RUNS: '1',
        RUNBRIDGE_MAX_QUEUED_RUNS: '1',
        RUNBRIDGE_DEFAULT_ENV: 'probe',
        RUNBRIDGE_MODEL: 'scripted:stuck',
        RUNBRIDGE_KEEPALIVE_SECONDS: '3600',
      },
      { environments: [probeEnvironment], providers: [scriptedProvider({ stuck: [{ hang: true }] })] },
    );
    try {
      const running = await bridge.startRun({});
      const queued = await bridge.startRun({});
      expect(((await (await bridge.fetch(`/v1/runs/${queued}`)).json()) as { status: string }).status).toBe('queued');
      // Its subscriber sees the stream open at once although the run has no event yet, not with the
      // first keep-alive: that comes after longer than the test may take.
      const stream = await bridge.fetch(`/v1/runs/${queued}/events`);
      expect(stream.status).toBe(200);
      expect(stream.headers.get('content-type')).toContain('text/event-stream');
      await stream.body?.cancel();
      const refused = await bridge.fetch('/v1/runs', { method: 'POST', headers: json, body: '{}' });
      expect(refused.status).toBe(429);
      expect(Number(refused.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
      expect(await refused.json()).toMatchObject({ error: { code: 'queue_full' } });

      // Cancelling the queued run still gives it a whole log.
      await bridge.fetch(`/v1/runs/${queued}/cancel`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
      });
      const queuedEvents = await bridge.readEvents(queued);
      assertEventOrder(queuedEvents);
      expect(queuedEvents.map((event) => event.event)).toEqual(['run.started', 'run.cancelled']);
      await bridge.fetch(`/v1/runs/${running}/cancel`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
      });
      expect((await bridge.readEvents(running)).at(-1)).toMatchObject({ event: 'run.cancelled', reason: 'client' });
    } finally {
      await bridge.shutdown();
    }
  });

  it('scopes runs to their key: no key is 401, another key sees 404', async () => {
    const bridge = await startTestBridge(
      { RUNBRIDGE_API_KEYS: 'alpha-key-0123456789,beta-key-0123456789a' },
      { apiKey: 'alpha-key-0123456789' },
    );
    try {
      const runId = await bridge.startRun({ env: 'arith' });
      const anonymous = await fetch(`${bridge.url}/v1/runs/${runId}`);
      expect(anonymous.status).toBe(401);
      expect(await anonymous.json()).toMatchObject({ error: { code: 'unauthorized' } });
      const beta = { Authorization: 'Bearer beta-key-0123456789a' };
      for (const [method, path] of [
        ['GET', `/v1/runs/${runId}`],
        ['GET', `/v1/runs/${runId}/events`],
        ['POST', `/v1/runs/${runId}/cancel`],
        ['DELETE', `/v1/runs/${runId}`],
      ] as const) {
        expect((await fetch(`${bridge.url}${path}`, { method, headers: beta })).status).toBe(404);
      }
      const list = (await (await fetch(`${bridge.url}/v1/runs`, { headers: beta })).json()) as { data: unknown[] };
      expect(list.data).toEqual([]);
      // Another key's run is unknown to this key, as a cursor too (where it sits among the runs is not ours to show).
      expect((await fetch(`${bridge.url}/v1/runs?after=${runId}`, { headers: beta })).status).toBe(400);
      expect((await bridge.readEvents(runId)).at(-1)?.event).toBe('run.completed');
    } finally {
      await bridge.shutdown();
    }
  });

  it('refuses to listen beyond loopback without API keys', async () => {
    await expect(startTestBridge({ HOST: '0.0.0.0' })).rejects.toThrow(/RUNBRIDGE_API_KEYS/);
  });

  it('drains on shutdown: 503 for new runs, running runs finish, subscribers get their terminal event', async () => {
    let release!: () => void;
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    const bridge = await startTestBridge(
      { RUNBRIDGE_DEFAULT_ENV: 'probe', RUNBRIDGE_MODEL: 'scripted:slow' },
      {
        environments: [probeEnvironment],
        providers: [scriptedProvider({ slow: [{ gate, text: 'finished in time' }] })],
      },
    );
    const runId = await bridge.startRun({});
    const reading = bridge.readEvents(runId);
    await eventually(() => bridge.registry.localStats().subscribers > 0, 'the subscriber');
    const stopping = bridge.shutdown();
    const refused = await bridge.fetch('/v1/runs', { method: 'POST', headers: json, body: '{}' });
    expect(refused.status).toBe(503);
    expect(await refused.json()).toMatchObject({ error: { code: 'draining' } });
    expect(((await (await bridge.fetch('/health')).json()) as { status: string }).status).toBe('draining');
    release();
    await stopping;
    const events = await reading;
    assertEventOrder(events);
    expect(events.at(-1)).toMatchObject({ event: 'run.completed', output: 'finished in time' });
  });
});
