import { afterEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/index.js';
import { RunSnapshotSchema } from '../../src/protocol/run-snapshot.js';
import { probeEnvironment } from '../support/probe-environment.js';
import { scriptedProvider } from '../support/scripted-model.js';
import { startTestBridge, type TestBridge } from '../support/start-test-bridge.js';

const json = { 'Content-Type': 'application/json' };
/** The API key named `name` (keys need 16 characters). */
const keyOf = (name: string) => `${name}-0123456789abcdef`;
const models = [
  scriptedProvider({
    stuck: [{ hang: true }],
    brief: [{ text: 'Done.' }],
    chatty: [{ text: 'word '.repeat(4000) }],
    loop: [
      { toolCalls: [{ name: 'echo', arguments: '{"text":"again"}' }] },
      { toolCalls: [{ name: 'echo', arguments: '{"text":"again"}' }] },
    ],
  }),
];

/** Fair and bounded under hostile load (docs/protocol.md §6): per-key quotas, byte budgets, and `stop_reason`. */
describe('quotas and byte budgets of the run store', () => {
  let bridge: TestBridge | undefined;
  afterEach(async () => {
    await bridge?.shutdown();
    bridge = undefined;
  });

  async function start(env: Record<string, string>, apiKey?: string): Promise<TestBridge> {
    bridge = await startTestBridge(
      { RUNBRIDGE_DEFAULT_ENV: 'probe', RUNBRIDGE_SHUTDOWN_GRACE_SECONDS: '0.001', ...env },
      { environments: [probeEnvironment], providers: models, ...(apiKey ? { apiKey } : {}) },
    );
    return bridge;
  }

  function post(key: string, body: Record<string, unknown>): Promise<Response> {
    return bridge!.fetch('/v1/runs', {
      method: 'POST',
      headers: { ...json, Authorization: `Bearer ${keyOf(key)}` },
      body: JSON.stringify(body),
    });
  }

  async function statusOf(key: string, response: Response): Promise<string> {
    const { run_id } = (await response.json()) as { run_id: string };
    const snapshot = await bridge!.fetch(`/v1/runs/${run_id}`, {
      headers: { Authorization: `Bearer ${keyOf(key)}` },
    });
    return ((await snapshot.json()) as { status: string }).status;
  }

  it('keeps one key that fills its share of slots and queue from locking the other keys out', async () => {
    await start({
      RUNBRIDGE_API_KEYS: `${keyOf('alpha')},${keyOf('beta')}`,
      RUNBRIDGE_MAX_CONCURRENT_RUNS: '2',
      RUNBRIDGE_MAX_QUEUED_RUNS: '4',
    });
    // With two keys each may run half the slots (1) and queue half the queue (2).
    const alpha = [];
    for (let i = 0; i < 3; i++) alpha.push(await post('alpha', { model: 'scripted:stuck' }));
    expect(alpha.map((response) => response.status)).toEqual([202, 202, 202]);
    expect(await Promise.all(alpha.map((response) => statusOf('alpha', response)))).toEqual([
      'running',
      'queued',
      'queued',
    ]);

    const refused = await post('alpha', { model: 'scripted:stuck' });
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    const body = (await refused.json()) as { error: { code: string; message: string } };
    expect(body.error.code).toBe('key_queue_full');
    expect(body.error.message).toContain('RUNBRIDGE_MAX_QUEUED_PER_KEY');

    // The other key still gets a slot at once, and room in the queue after that.
    const beta = await post('beta', { model: 'scripted:stuck' });
    expect(beta.status).toBe(202);
    expect(await statusOf('beta', beta)).toBe('running');
    const betaQueued = await post('beta', { model: 'scripted:stuck' });
    expect(await statusOf('beta', betaQueued)).toBe('queued');
  });

  it('starts a waiting run of a key as soon as that key has a run end, even with another key first in the queue', async () => {
    await start({
      RUNBRIDGE_API_KEYS: `${keyOf('alpha')},${keyOf('beta')}`,
      RUNBRIDGE_MAX_CONCURRENT_RUNS: '4',
      RUNBRIDGE_MAX_RUNNING_PER_KEY: '1',
    });
    const first = (await (await post('alpha', { model: 'scripted:stuck' })).json()) as { run_id: string };
    const waiting = (await (await post('alpha', { model: 'scripted:stuck' })).json()) as { run_id: string };
    const other = await post('beta', { model: 'scripted:stuck' });
    expect(await statusOf('beta', other)).toBe('running');
    const alphaSnapshot = (id: string) =>
      bridge!
        .fetch(`/v1/runs/${id}`, { headers: { Authorization: `Bearer ${keyOf('alpha')}` } })
        .then(async (response) => ((await response.json()) as { status: string }).status);
    expect(await alphaSnapshot(waiting.run_id)).toBe('queued');
    await bridge!.fetch(`/v1/runs/${first.run_id}/cancel`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${keyOf('alpha')}` },
    });
    await expect.poll(() => alphaSnapshot(waiting.run_id), { timeout: 10_000 }).toBe('running');
  });

  it('bounds the bytes of queued requests: a large input that would pass the bound is a 429, not memory', async () => {
    await start({
      RUNBRIDGE_MAX_CONCURRENT_RUNS: '1',
      RUNBRIDGE_MAX_QUEUED_BYTES: String(250 * 1024),
      RUNBRIDGE_MODEL: 'scripted:stuck',
    });
    const input = 'x'.repeat(100 * 1024);
    await bridge!.startRun({});
    const accepted = [await bridge!.startRun({ input }), await bridge!.startRun({ input })];
    expect(accepted).toHaveLength(2);
    const refused = await bridge!.fetch('/v1/runs', { method: 'POST', headers: json, body: JSON.stringify({ input }) });
    expect(refused.status).toBe(429);
    expect(refused.headers.get('retry-after')).not.toBeNull();
    const body = (await refused.json()) as { error: { code: string; message: string } };
    expect(body.error).toMatchObject({ code: 'queue_full' });
    expect(body.error.message).toContain('RUNBRIDGE_MAX_QUEUED_BYTES');
    // A small one still fits.
    await bridge!.startRun({ input: 'small' });
  });

  it('forgets the oldest finished runs first once stored runs pass their byte budget, long before retention', async () => {
    await start({ RUNBRIDGE_MAX_STORED_BYTES: String(40 * 1024), RUNBRIDGE_RETENTION_SECONDS: '3600' });
    const runs: string[] = [];
    for (let i = 0; i < 8; i++) {
      const id = await bridge!.startRun({ input: `${i} ${'y'.repeat(8 * 1024)}` });
      await bridge!.readEvents(id);
      runs.push(id);
    }
    await bridge!.registry.sweep();
    const kept = await Promise.all(runs.map(async (id) => (await bridge!.fetch(`/v1/runs/${id}`)).status));
    // Some runs are gone, the oldest ones: the kept ones are a suffix that includes the newest.
    expect(kept).toContain(404);
    expect(kept.at(-1)).toBe(200);
    expect(kept.slice(kept.indexOf(200))).not.toContain(404);
    expect(kept.slice(0, kept.indexOf(200))).not.toContain(200);
  });

  it('refuses new runs with 429 store_full while running runs hold the whole byte budget', async () => {
    await start({ RUNBRIDGE_MAX_STORED_BYTES: String(20 * 1024), RUNBRIDGE_MODEL: 'scripted:stuck' });
    await bridge!.startRun({ input: 'z'.repeat(12 * 1024) });
    const refused = await bridge!.fetch('/v1/runs', {
      method: 'POST',
      headers: json,
      body: JSON.stringify({ input: 'z'.repeat(12 * 1024) }),
    });
    expect(refused.status).toBe(429);
    expect(refused.headers.get('retry-after')).not.toBeNull();
    expect(await refused.json()).toMatchObject({ error: { code: 'store_full' } });
  });

  it("never forgets another key's finished run within its retention: a key past its share of the stored bytes gets 429 key_store_full", async () => {
    await start({
      RUNBRIDGE_API_KEYS: `${keyOf('alpha')},${keyOf('beta')}`,
      RUNBRIDGE_MAX_STORED_BYTES: String(64 * 1024),
    });
    const kept = await post('alpha', { model: 'scripted:brief' });
    const { run_id: alphaRun } = (await kept.json()) as { run_id: string };
    await bridge!.readEvents(alphaRun, { headers: { Authorization: `Bearer ${keyOf('alpha')}` } });
    // Beta floods with large runs that stay running: they count against its share (half the budget).
    const answers: Response[] = [];
    for (let i = 0; i < 8; i++)
      answers.push(await post('beta', { model: 'scripted:stuck', input: 'b'.repeat(8 * 1024) }));
    const statuses = answers.map((answer) => answer.status);
    expect(statuses.slice(0, 3)).toEqual([202, 202, 202]);
    expect(statuses).toContain(429);
    const refused = answers.find((answer) => answer.status === 429)!;
    expect(await refused.json()).toMatchObject({ error: { code: 'key_store_full' } });
    await bridge!.registry.sweep();
    const alpha = await bridge!.fetch(`/v1/runs/${alphaRun}`, {
      headers: { Authorization: `Bearer ${keyOf('alpha')}` },
    });
    expect(alpha.status).toBe(200);
    // Alpha still has room of its own.
    expect((await post('alpha', {})).status).toBe(202);
  });

  it('fails a run that would hold more than RUNBRIDGE_MAX_RUN_BYTES with run_too_large, closing it whole', async () => {
    await start({ RUNBRIDGE_MAX_RUN_BYTES: String(8 * 1024) });
    const id = await bridge!.startRun({ model: 'scripted:chatty' });
    const events = await bridge!.readEvents(id);
    expect(events.at(-1)).toMatchObject({ event: 'run.failed', code: 'run_too_large' });
    const snapshot = (await (await bridge!.fetch(`/v1/runs/${id}`)).json()) as { error: { code: string } };
    expect(snapshot.error.code).toBe('run_too_large');
  });

  it('tells in the snapshot why a run stopped: null until it completes, then max_turns or no_tool_calls', async () => {
    await start({});
    const looping = await bridge!.startRun({ model: 'scripted:loop', max_turns: 1 });
    const snapshotOf = async (id: string) =>
      RunSnapshotSchema.parse(await (await bridge!.fetch(`/v1/runs/${id}`)).json());
    await bridge!.readEvents(looping);
    expect(await snapshotOf(looping)).toMatchObject({ status: 'completed', stop_reason: 'max_turns' });
    const answering = await bridge!.startRun({ model: 'scripted:loop', max_turns: 5 });
    await bridge!.readEvents(answering);
    expect(await snapshotOf(answering)).toMatchObject({ status: 'completed', stop_reason: 'no_tool_calls' });
    const hanging = await bridge!.startRun({ model: 'scripted:stuck' });
    expect(await snapshotOf(hanging)).toMatchObject({ status: 'running', stop_reason: null });
    await bridge!.fetch(`/v1/runs/${hanging}/cancel`, { method: 'POST', headers: json });
    await bridge!.readEvents(hanging);
    expect(await snapshotOf(hanging)).toMatchObject({ status: 'cancelled', stop_reason: null });
  });
});

describe('the quota settings', () => {
  it('default each key to half the slots and half the queue when several keys share the server, to no bound for one', () => {
    expect(
      loadConfig({ RUNBRIDGE_API_KEYS: `${keyOf('a')},${keyOf('b')}`, RUNBRIDGE_MAX_CONCURRENT_RUNS: '9' }),
    ).toMatchObject({
      maxRunningPerKey: 5,
      maxQueuedPerKey: 500,
      maxStoredBytesPerKey: 128 * 1024 * 1024,
    });
    const unbounded = Number.MAX_SAFE_INTEGER;
    expect(loadConfig({ RUNBRIDGE_API_KEYS: keyOf('a') })).toMatchObject({
      maxRunningPerKey: unbounded,
      maxQueuedPerKey: unbounded,
      maxStoredBytesPerKey: unbounded,
    });
    expect(loadConfig({})).toMatchObject({
      maxRunningPerKey: unbounded,
      maxQueuedPerKey: unbounded,
      maxQueuedBytes: 64 * 1024 * 1024,
      maxStoredBytes: 256 * 1024 * 1024,
    });
    expect(
      loadConfig({
        RUNBRIDGE_API_KEYS: `${keyOf('a')},${keyOf('b')}`,
        RUNBRIDGE_MAX_RUNNING_PER_KEY: '3',
        RUNBRIDGE_MAX_QUEUED_PER_KEY: '0',
      }),
    ).toMatchObject({ maxRunningPerKey: 3, maxQueuedPerKey: 0 });
  });
});
