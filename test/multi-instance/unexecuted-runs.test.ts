import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LOCAL_OWNER } from '../../src/http/authenticate.js';
import type { RunEvent } from '../../src/protocol/run-events.js';
import { RunRequestSchema } from '../../src/protocol/run-request.js';
import type { RunSnapshot } from '../../src/protocol/run-snapshot.js';
import { assertEventOrder } from '../../src/protocol/verify-event-order.js';
import { newRunLog, type RunRecord, recordBytes } from '../../src/runs/run-record.js';
import { listItemOf } from '../../src/runs/snapshot-of.js';
import { RedisConnection } from '../../src/store/redis/redis-connection.js';
import { type CapturedLog, captureLog } from '../support/captured-log.js';
import { eventually } from '../support/eventually.js';
import { readScrape } from '../support/read-scrape.js';
import { startTestRedis, type TestRedis } from '../support/redis-server.js';
import { readRecords, startRollout } from '../support/rollout-client.js';
import { scriptedProvider } from '../support/scripted-model.js';
import { startTestBridge, type TestBridge } from '../support/start-test-bridge.js';

/**
 * Runs Redis lists as running that no live instance executes (docs/protocol.md §8.2). A Redis stall used
 * to leave such runs behind, held by an instance that was alive and renewing its lease but had stopped
 * executing them: no terminal event, `running` for good. Each instance's sweep now ends those it holds
 * (seen so at two sweeps in a row) as the lease sweep ends a lost instance's, a cancel ends one at once,
 * and whichever instance ends a run logs and counts that end, once. Such runs are planted here as the old
 * code left them: started for an instance, a few events written, and nothing executing them.
 */
const json = { 'Content-Type': 'application/json' };

describe('runs no live instance executes', () => {
  let redis: TestRedis;
  let prefix: string;
  let store: RedisConnection;
  let logA: CapturedLog;
  let a: TestBridge;
  let b: TestBridge;
  /** A's id in the store, which holds the runs it executes. */
  let instanceA: string;

  beforeAll(async () => {
    redis = await startTestRedis();
    prefix = redis.prefix();
    logA = captureLog('info');
    const env = {
      RUNBRIDGE_REDIS_URL: redis.url,
      RUNBRIDGE_REDIS_PREFIX: prefix,
      RUNBRIDGE_SWEEP_SECONDS: '0.1',
      RUNBRIDGE_LEASE_SECONDS: '1',
      RUNBRIDGE_MAX_CONCURRENT_RUNS: '1',
      RUNBRIDGE_SHUTDOWN_GRACE_SECONDS: '1',
    };
    const providers = [scriptedProvider({ hang: [{ hang: true }] })];
    a = await startTestBridge(env, { logger: logA.logger, providers });
    b = await startTestBridge(env, { providers });
    store = new RedisConnection(redis.url, { commandTimeoutMs: 2000 });
    await store.connect(10_000);
    // The one run A executes names its instance in the running index.
    const held = await a.startRun({ model: 'scripted:hang' });
    instanceA = await eventually(
      async () => (await store.command.hget(`${prefix}running`, held)) ?? undefined,
      'A to hold its run',
    );
    await a.fetch(`/v1/runs/${held}/cancel`, { method: 'POST', headers: json, body: '{}' });
  });
  afterAll(async () => {
    await store?.close();
    await a?.shutdown();
    await b?.shutdown();
    await redis?.stop();
  });

  /** Writes, as `instance` executing run `record` would, its first events: started, then a tool call left open. */
  async function writeOpening(record: RunRecord, instance: string): Promise<void> {
    const log = newRunLog(record, { maxEvents: 100, now: Date.now });
    log.append({ event: 'run.started', env: record.env, task: record.task, model: record.model });
    log.append({
      event: 'tool.started',
      tool: 'calculator',
      tool_call_id: 'call_1',
      arguments: { expression: '1 + 1' },
      preview: 'calculator(1 + 1)',
      turn: 1,
      call_index: 0,
    });
    const reply = await store.script(
      'rbAppend',
      prefix,
      {
        id: record.id,
        holder: instance,
        first: 0,
        count: log.length,
        snapshot: JSON.stringify(listItemOf(record, log)),
        bytes: log.bytes,
        finishedAt: '',
        expireMs: 60_000,
        lease: '',
        messagesTaken: 0,
      },
      log.entries.flatMap((entry) => [entry.json, '']),
    );
    expect(reply).toBe('ok');
  }

  /** A run started for `instance` and written a little, as a Redis stall left them: nothing executes it. */
  async function strand(instance: string): Promise<string> {
    const record: RunRecord = {
      id: `run_stranded${Math.random().toString(36).slice(2, 14)}`,
      owner: LOCAL_OWNER,
      env: 'arith',
      task: { split: 'train', index: 0 },
      model: 'offline',
      request: RunRequestSchema.parse({ env: 'arith' }),
      createdAt: Date.now(),
    };
    const reply = (await store.script('rbSubmit', prefix, {
      id: record.id,
      owner: record.owner,
      record: JSON.stringify(record),
      snapshot: JSON.stringify(listItemOf(record, newRunLog(record, { maxEvents: 100, now: Date.now }))),
      createdAt: record.createdAt,
      storedBytes: recordBytes(record),
      requestBytes: 100,
      idemKey: '',
      idemValue: '',
      startHere: 1,
      instance,
      maxQueued: 100,
      maxRunningPerKey: 100,
      maxQueuedPerKey: 100,
      maxQueuedBytes: 1_000_000,
      maxStoredBytes: 100_000_000,
      maxStoredBytesPerKey: 100_000_000,
      sealedSecrets: '',
      listed: 1,
    })) as string[];
    expect(reply).toEqual(['started']);
    await writeOpening(record, instance);
    return record.id;
  }

  const snapshot = async (bridge: TestBridge, runId: string) =>
    (await (await bridge.fetch(`/v1/runs/${runId}`)).json()) as RunSnapshot;
  const finishedCount = async (bridge: TestBridge, status: string) =>
    readScrape(await (await bridge.fetch('/metrics')).text()).value('runbridge_runs_finished_total', {
      env: 'arith',
      status,
    }) ?? 0;

  it('ends a run its live holder no longer executes with instance_lost, once, seen alike on every instance', async () => {
    const failedBefore = [await finishedCount(a, 'failed'), await finishedCount(b, 'failed')];
    const runId = await strand(instanceA);
    const streams = [a, b].map((bridge) => bridge.readEvents(runId));
    const logs: RunEvent[][] = await Promise.all(streams);
    for (const log of logs) {
      assertEventOrder(log);
      expect(log.slice(2)).toMatchObject([
        { event: 'tool.completed', tool_call_id: 'call_1', error: true },
        { event: 'run.failed', code: 'instance_lost' },
      ]);
    }
    expect(logs[1]).toEqual(logs[0]);
    for (const bridge of [a, b]) {
      expect(await snapshot(bridge, runId)).toMatchObject({ status: 'failed', error: { code: 'instance_lost' } });
    }
    const health = (await (await b.fetch('/health')).json()) as { runs: { running: number } };
    expect(health.runs.running).toBe(0);
    // A ended it: A logs its one end line and counts it as failed; B does neither. A does both once
    // its append is answered, which may come after the readers saw the event it appended.
    const ended = await eventually(() => {
      const lines = logA.lines().filter((line) => line.run_id === runId && line.msg === 'run ended');
      return lines.length > 0 && lines;
    }, "A's end line");
    expect(ended).toMatchObject([{ status: 'failed', code: 'instance_lost' }]);
    expect([await finishedCount(a, 'failed'), await finishedCount(b, 'failed')]).toEqual([
      failedBefore[0]! + 1,
      failedBefore[1],
    ]);
  });

  it("counts a lost instance's run as failed where it is ended, once across the instances", async () => {
    const failed = async () => (await finishedCount(a, 'failed')) + (await finishedCount(b, 'failed'));
    const before = await failed();
    // An instance that wrote a run's first events, then died: it has no lease.
    const runId = await strand('i_gone');
    const log = await b.readEvents(runId);
    assertEventOrder(log);
    expect(log.at(-1)).toMatchObject({ event: 'run.failed', code: 'instance_lost' });
    // The ender counts the run once its append is answered, which may come after this reader saw the event.
    await eventually(async () => (await failed()) > before, 'the end counted');
    expect(await failed()).toBe(before + 1);
  });

  it('answers a cancel of such a run, on any instance, with cancelled, at once', async () => {
    for (const bridge of [a, b]) {
      const runId = await strand(instanceA);
      const answer = await bridge.fetch(`/v1/runs/${runId}/cancel`, { method: 'POST', headers: json, body: '{}' });
      expect(answer.status).toBe(202);
      expect(((await answer.json()) as RunSnapshot).status).toBe('cancelled');
      const log = await b.readEvents(runId);
      assertEventOrder(log);
      expect(log.at(-1)).toMatchObject({ event: 'run.cancelled', reason: 'client' });
    }
  });

  it('plays again a rollout pair whose run was so stranded, as one whose instance was lost', async () => {
    // Both instances busy: the batch's pairs wait in the queue, where the test takes one for A.
    const busy = [await a.startRun({ model: 'scripted:hang' }), await b.startRun({ model: 'scripted:hang' })];
    const batch = await startRollout(a.fetch, {
      env: 'arith',
      split: 'train',
      tasks: '0:2',
      samples: 1,
      model: 'offline',
      retries: 1,
    });
    const [taken] = (await store.script('rbClaim', prefix, {
      instance: instanceA,
      max: 1,
      maxRunningPerKey: 100,
    })) as string[][];
    const record = JSON.parse(taken![1]!) as RunRecord;
    expect(record.rollout).toMatchObject({ rollout_id: batch, attempt: 1 });
    await writeOpening(record, instanceA);
    for (const [bridge, runId] of [a, b].map((bridge, index) => [bridge, busy[index]!] as const)) {
      await bridge.fetch(`/v1/runs/${runId}/cancel`, { method: 'POST', headers: json, body: '{}' });
    }

    const done = await eventually(async () => {
      const seen = (await (await b.fetch(`/v1/rollouts/${batch}`)).json()) as Record<string, unknown>;
      return seen.status === 'completed' && seen;
    }, 'the batch to complete');
    expect(done).toMatchObject({ total: 2, completed: 2, failed: 0 });
    expect(await snapshot(b, record.id)).toMatchObject({ status: 'failed', error: { code: 'instance_lost' } });
    const records = await readRecords(b.fetch, batch);
    expect(records.find((entry) => entry.task.index === record.rollout!.task_index)).toMatchObject({ attempt: 2 });
  });
});
