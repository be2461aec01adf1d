import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ModelProvider } from '../../src/models/model.js';
import { generateRollouts } from '../../src/rollouts/generate-rollouts.js';
import { planRollouts } from '../../src/rollouts/rollout-plan.js';
import { RolloutSnapshotSchema } from '../../src/rollouts/rollout-snapshot.js';
import type { TrajectoryRecord } from '../../src/rollouts/trajectory-schema.js';
import {
  misbehavingModel,
  offlineModel,
  readRecords as readRolloutFile,
  startRolloutRig,
} from '../rollouts/rollout-rig.js';
import {
  ndjsonLines,
  postRollout,
  readRecordEvents,
  readRecords,
  readRecordsThenDisconnect,
  startRollout,
} from '../support/rollout-client.js';
import { startTestBridge, type TestBridge } from '../support/start-test-bridge.js';

const BATCH = { env: 'arith', split: 'train', tasks: '0:6', samples: 2, model: 'offline' };

const keyOf = (record: TrajectoryRecord) => `${record.group_id}#${record.sample_index}`;

describe('rollout batches over HTTP (docs/api.md, "Rollout batches")', () => {
  let bridge: TestBridge;

  beforeAll(async () => {
    bridge = await startTestBridge({ RUNBRIDGE_MAX_CONCURRENT_RUNS: '4' });
  });
  afterAll(() => bridge?.shutdown());

  it('answers 202 with the batch, then streams one valid record per pair, seeded as a local batch', async () => {
    const { status, answer } = await postRollout(bridge.fetch, { ...BATCH, policy_version: 'step-7' });
    expect(status).toBe(202);
    expect(answer).toMatchObject({ rollout_id: expect.stringMatching(/^ro_/), records_url: expect.any(String) });
    const id = answer.rollout_id as string;
    expect(answer.records_url).toBe(`/v1/rollouts/${id}/records`);

    const records = await readRecords(bridge.fetch, id);
    const plan = planRollouts({ env: 'arith', split: 'train', indices: [0, 1, 2, 3, 4, 5], samples: 2, masterSeed: 0 });
    expect(records.map(keyOf).sort()).toEqual(plan.map((pair) => pair.key).sort());
    for (const record of records) {
      const pair = plan.find((planned) => planned.key === keyOf(record))!;
      // Several samples and no temperature: 1, as runbridge rollout samples them.
      expect(record).toMatchObject({
        batch_id: id,
        policy_version: 'step-7',
        sampling: { seed: pair.seed, temperature: 1 },
      });
    }

    const snapshot = RolloutSnapshotSchema.parse(await (await bridge.fetch(`/v1/rollouts/${id}`)).json());
    expect(snapshot).toMatchObject({ status: 'completed', total: 12, completed: 12, failed: 0, running: 0, queued: 0 });
    expect(snapshot.mean_reward).toBeCloseTo(records.reduce((sum, r) => sum + (r.reward ?? 0), 0) / 12);
    expect(snapshot.pass_at_k).toHaveProperty('2');
    expect(snapshot.config).toMatchObject({ env: 'arith', split: 'train', tasks: '0:6', samples: 2, seed: 0 });
    const started = Math.min(...records.map((record) => record.timing.started_at));
    expect(snapshot.started_at).toBe(started);
    expect(snapshot.created_at).toBeLessThanOrEqual(started);
    expect(snapshot.finished_at).toBeGreaterThanOrEqual(Math.max(...records.map((record) => record.timing.ended_at)));
  });

  it('takes tasks as a list of indices, as the selection syntax does', async () => {
    const id = await startRollout(bridge.fetch, { ...BATCH, tasks: [7, 2, 40], samples: 1 });
    const records = await readRecords(bridge.fetch, id);
    expect(records.map((record) => record.task.index).sort((a, b) => a - b)).toEqual([2, 7, 40]);
    const snapshot = RolloutSnapshotSchema.parse(await (await bridge.fetch(`/v1/rollouts/${id}`)).json());
    expect(snapshot).toMatchObject({ status: 'completed', total: 3, completed: 3 });
  });

  it('plays the same seeds and rewards as runbridge rollout with the same settings', async () => {
    const id = await startRollout(bridge.fetch, { ...BATCH, seed: 11 });
    const served = await readRecords(bridge.fetch, id);
    // The same built-in environments on an ORS server of the test's own (the bridge's asks for its token).
    const rig = await startRolloutRig();
    try {
      const out = rig.path('local.jsonl');
      await generateRollouts({
        ors: rig.ors,
        model: offlineModel(),
        env: 'arith',
        split: 'train',
        tasks: '0:6',
        samples: 2,
        seed: 11,
        out,
      });
      const local = readRolloutFile(out);
      const byKey = new Map(local.map((record) => [keyOf(record), record]));
      for (const record of served) {
        const twin = byKey.get(keyOf(record))!;
        expect(record.sampling.seed, keyOf(record)).toBe(twin.sampling.seed);
        expect(record.reward, keyOf(record)).toBe(twin.reward);
        expect(record.messages, keyOf(record)).toEqual(twin.messages);
        expect(record.task, keyOf(record)).toEqual(twin.task);
      }
    } finally {
      await rig.close();
    }
  });

  it('serves SSE with the seq as id, resumes exactly after Last-Event-ID or ?after=, and ends with an end event', async () => {
    const id = await startRollout(bridge.fetch, BATCH);
    const all = await readRecordEvents(bridge.fetch, id);
    const records = all.filter((event) => event.event === undefined);
    expect(records.map((event) => event.id)).toEqual([...Array(12).keys()].map(String));
    expect(all.at(-1)).toMatchObject({ event: 'end', data: JSON.stringify({ rollout_id: id, status: 'completed' }) });

    const resumed = await readRecordEvents(bridge.fetch, id, { 'Last-Event-ID': '4' });
    expect(resumed.filter((event) => event.event === undefined).map((event) => event.data)).toEqual(
      records.slice(5).map((event) => event.data),
    );
    const viaQuery = await readRecords(bridge.fetch, id, '?after=9');
    expect(viaQuery.map((record) => JSON.stringify(record))).toEqual(records.slice(10).map((event) => event.data));
    // Nothing left after the last: 204, so an EventSource stops reconnecting.
    expect(
      (await bridge.fetch(`/v1/rollouts/${id}/records?after=11`, { headers: { Accept: 'text/event-stream' } })).status,
    ).toBe(204);
  });

  it('lets a client that went away mid-batch resume with ?after= and miss nothing, see nothing twice', async () => {
    const id = await startRollout(bridge.fetch, { ...BATCH, tasks: '0:10' });
    const first = await readRecordsThenDisconnect(bridge.fetch, id, 5);
    expect(first).toHaveLength(5);
    const rest = await readRecords(bridge.fetch, id, `?after=${first.length - 1}`);
    const keys = [...first, ...rest].map(keyOf);
    expect(keys).toHaveLength(20);
    expect(new Set(keys).size).toBe(20);
  });

  it('streams grpo groups, each once all of its samples are in, with its statistics', async () => {
    const id = await startRollout(bridge.fetch, { ...BATCH, samples: 3, tasks: '0:4' });
    const events = (await readRecordEvents(bridge.fetch, id, {}, '?format=grpo')).filter((e) => e.event === undefined);
    expect(events).toHaveLength(4);
    for (const event of events) {
      const rows = ndjsonLines(event.data) as Array<{ group_size: number; group_mean: number; reward: number }>;
      expect(rows).toHaveLength(3);
      expect(rows.every((row) => row.group_size === 3)).toBe(true);
      expect(rows[0]!.group_mean).toBeCloseTo(rows.reduce((sum, row) => sum + row.reward, 0) / 3);
    }
    const lines = ndjsonLines(await (await bridge.fetch(`/v1/rollouts/${id}/records?format=openai-chat`)).text());
    expect(lines).toHaveLength(12);
    expect(lines[0]).toHaveProperty('messages');
    const verifiers = ndjsonLines(
      await (await bridge.fetch(`/v1/rollouts/${id}/records?format=verifiers`)).text(),
    ) as Array<{
      example_id: number;
      prompt: unknown[];
      completion: unknown[];
    }>;
    expect(verifiers).toHaveLength(12);
    // example_id is a task's position among the batch's tasks, as the export numbers them.
    expect(new Set(verifiers.map((row) => row.example_id))).toEqual(new Set([0, 1, 2, 3]));
    expect(verifiers.every((row) => row.prompt.length > 0 && row.completion.length > 0)).toBe(true);
  });

  it('answers the batch an Idempotency-Key names for the same body (200), and 409 for another body', async () => {
    const headers = { 'Idempotency-Key': 'batch-one' };
    const first = await postRollout(bridge.fetch, BATCH, headers);
    expect(first.status).toBe(202);
    const again = await postRollout(bridge.fetch, BATCH, headers);
    expect(again.status).toBe(200);
    expect(again.answer.rollout_id).toBe(first.answer.rollout_id);
    const other = await postRollout(bridge.fetch, { ...BATCH, samples: 3 }, headers);
    expect(other.status).toBe(409);
    expect(other.answer).toMatchObject({ error: { code: 'idempotency_conflict' } });
    await readRecords(bridge.fetch, first.answer.rollout_id as string);
  });

  it.each([
    ['an unknown environment', { env: 'nope' }, 404, 'unknown_env'],
    ['an unknown split', { split: 'nope' }, 400, 'invalid_task'],
    ['tasks out of range', { tasks: '990:1010' }, 400, 'invalid_task'],
    ['samples 0', { samples: 0 }, 400, 'invalid_request'],
    ['samples above the limit', { samples: 100_001 }, 400, 'invalid_request'],
    ['a bad task selection', { tasks: '5:5' }, 400, 'invalid_request'],
    ['an unknown field', { temperature: 1 }, 400, 'invalid_request'],
    ['an unknown model', { model: 'nope:nothing' }, 400, undefined],
  ])('answers %s with a clear 4xx, storing nothing', async (_what, change, status, code) => {
    const before = (await (await bridge.fetch('/v1/rollouts?limit=100')).json()) as { data: unknown[] };
    const { status: got, answer } = await postRollout(bridge.fetch, { ...BATCH, ...change });
    expect(got).toBe(status);
    if (code !== undefined) expect(answer).toMatchObject({ error: { code } });
    expect((answer as { error: { message: string } }).error.message.length).toBeGreaterThan(10);
    const after = (await (await bridge.fetch('/v1/rollouts?limit=100')).json()) as { data: unknown[] };
    expect(after.data).toHaveLength(before.data.length);
  });

  it('lists batches newest first, and leaves their pairs out of GET /v1/runs', async () => {
    const id = await startRollout(bridge.fetch, BATCH);
    await readRecords(bridge.fetch, id);
    const listed = (await (await bridge.fetch('/v1/rollouts?limit=1')).json()) as {
      data: Array<{ rollout_id: string }>;
      next: string | null;
    };
    expect(listed.data.map((batch) => batch.rollout_id)).toEqual([id]);
    expect(listed.next).toBe(id);
    const runs = (await (await bridge.fetch('/v1/runs?limit=100')).json()) as { data: Array<{ metadata: object }> };
    expect(runs.data.filter((run) => 'rollout_id' in run.metadata)).toEqual([]);
  });

  it('cancels a batch (its stream ends, no pair is recorded after), refuses to delete it before, deletes it after', async () => {
    const id = await startRollout(bridge.fetch, { ...BATCH, tasks: '0:50', samples: 4 });
    const early = await bridge.fetch(`/v1/rollouts/${id}`, { method: 'DELETE' });
    expect(early.status).toBe(409);
    expect(await early.json()).toMatchObject({ error: { code: 'rollout_active' } });
    const cancel = await bridge.fetch(`/v1/rollouts/${id}/cancel`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
    });
    expect(cancel.status).toBe(202);
    expect(await cancel.json()).toEqual({ rollout_id: id, status: 'cancelled' });
    const records = await readRecords(bridge.fetch, id);
    const snapshot = RolloutSnapshotSchema.parse(await (await bridge.fetch(`/v1/rollouts/${id}`)).json());
    expect(snapshot.status).toBe('cancelled');
    expect(snapshot.completed + snapshot.failed).toBe(records.length);
    expect(records.length).toBeLessThan(200);
    expect((await bridge.fetch(`/v1/rollouts/${id}`, { method: 'DELETE' })).status).toBe(204);
    expect((await bridge.fetch(`/v1/rollouts/${id}`)).status).toBe(404);
  });
});

describe('rollout batches and failed pairs', () => {
  let bridge: TestBridge;
  const seen = new Set<number>();

  beforeAll(async () => {
    // The offline model, except that the first call with each seed fails: every pair's first attempt fails.
    const offline = offlineModel();
    const flaky: ModelProvider = {
      name: 'flaky',
      listedModels: [],
      defaultModel: '',
      create: () =>
        misbehavingModel({ id: 'flaky', stream: (request) => offline.stream(request) }, (request) => {
          const seed = request.sampling.seed!;
          if (seen.has(seed)) return 'play';
          seen.add(seed);
          return 'fail';
        }),
    };
    bridge = await startTestBridge({ RUNBRIDGE_MAX_CONCURRENT_RUNS: '4' }, { providers: [flaky] });
  });
  afterAll(() => bridge?.shutdown());

  it("plays a failed pair again under the batch's retries, and records only its last attempt", async () => {
    const id = await startRollout(bridge.fetch, { ...BATCH, model: 'flaky', retries: 1, seed: 21 });
    const records = await readRecords(bridge.fetch, id);
    expect(records).toHaveLength(12);
    expect(new Set(records.map(keyOf)).size).toBe(12);
    expect(records.every((record) => record.attempt === 2 && record.status === 'completed')).toBe(true);
    const snapshot = RolloutSnapshotSchema.parse(await (await bridge.fetch(`/v1/rollouts/${id}`)).json());
    expect(snapshot).toMatchObject({ status: 'completed', completed: 12, failed: 0 });
  });

  it('records a failed pair as failed once its retries are spent', async () => {
    const id = await startRollout(bridge.fetch, { ...BATCH, model: 'flaky', retries: 0, seed: 22 });
    const records = await readRecords(bridge.fetch, id);
    expect(records).toHaveLength(12);
    expect(records.every((record) => record.attempt === 1 && record.status === 'failed')).toBe(true);
    const snapshot = RolloutSnapshotSchema.parse(await (await bridge.fetch(`/v1/rollouts/${id}`)).json());
    expect(snapshot).toMatchObject({ status: 'completed', completed: 0, failed: 12 });
  });
});

describe('rollout batches and the queue quota', () => {
  let bridge: TestBridge;

  beforeAll(async () => {
    bridge = await startTestBridge({ RUNBRIDGE_MAX_CONCURRENT_RUNS: '1', RUNBRIDGE_MAX_QUEUED_RUNS: '5' });
  });
  afterAll(() => bridge?.shutdown());

  it('answers 400 batch_too_large, before anything is stored, for a batch whose pairs the queue could never hold', async () => {
    const { status, answer } = await postRollout(bridge.fetch, { ...BATCH, tasks: '0:3', samples: 2 });
    expect(status).toBe(400);
    expect(answer).toMatchObject({ error: { code: 'batch_too_large' } });
    expect((answer as { error: { message: string } }).error.message).toMatch(/3 tasks, more than the 2 .* 5 pairs/);
    const listed = (await (await bridge.fetch('/v1/rollouts')).json()) as { data: unknown[] };
    expect(listed.data).toEqual([]);
    const fits = await startRollout(bridge.fetch, { ...BATCH, tasks: '0:5', samples: 1 });
    expect(await readRecords(bridge.fetch, fits)).toHaveLength(5);
  });
});

describe('rollout batches and keys', () => {
  let bridge: TestBridge;

  beforeAll(async () => {
    bridge = await startTestBridge(
      { RUNBRIDGE_API_KEYS: 'key-one-0123456789abcdef,key-two-0123456789abcdef' },
      { apiKey: 'key-one-0123456789abcdef' },
    );
  });
  afterAll(() => bridge?.shutdown());

  it("scopes batches to the caller's key: another key gets 404 and an empty list", async () => {
    const id = await startRollout(bridge.fetch, BATCH);
    const other = { Authorization: 'Bearer key-two-0123456789abcdef' };
    const answer = await fetch(`${bridge.url}/v1/rollouts/${id}`, { headers: other });
    expect(answer.status).toBe(404);
    expect(await answer.json()).toMatchObject({ error: { code: 'rollout_not_found' } });
    expect((await fetch(`${bridge.url}/v1/rollouts/${id}/records`, { headers: other })).status).toBe(404);
    expect(await (await fetch(`${bridge.url}/v1/rollouts`, { headers: other })).json()).toEqual({
      data: [],
      next: null,
    });
    await readRecords(bridge.fetch, id);
  });
});
