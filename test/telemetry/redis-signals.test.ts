import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunSnapshot } from '../../src/protocol/run-snapshot.js';
import { snapshotOf } from '../hitl/hitl-support.js';
import { type CapturedLog, captureLog } from '../support/captured-log.js';
import { eventually } from '../support/eventually.js';
import { type OtlpReceiver, startOtlpReceiver } from '../support/otlp-receiver.js';
import { readScrape } from '../support/read-scrape.js';
import { startTestRedis, type TestRedis } from '../support/redis-server.js';
import { scriptedProvider } from '../support/scripted-model.js';
import { startTestBridge, type TestBridge } from '../support/start-test-bridge.js';

/**
 * The signals of two instances on one Redis (docs/operations.md): a run started by one instance and
 * executed by the other stays in its caller's trace, the queue both share is counted by each, and an
 * instance logs losing Redis, finding it again and the lease that lapsed meanwhile.
 */

const CALLER_TRACE = '5c1e2b3a4d5f60718293a4b5c6d7e8f9';
const CALLER_SPAN = '1a2b3c4d5e6f7a8b';
const LEASE_SECONDS = 0.3;
const json = { 'Content-Type': 'application/json' };

describe('two traced instances on one Redis', () => {
  let redis: TestRedis;
  let receiver: OtlpReceiver;
  let logA: CapturedLog;
  let a: TestBridge;
  let b: TestBridge;

  beforeAll(async () => {
    redis = await startTestRedis();
    receiver = await startOtlpReceiver();
    logA = captureLog('info');
    const env = {
      RUNBRIDGE_REDIS_URL: redis.url,
      RUNBRIDGE_REDIS_PREFIX: redis.prefix(),
      RUNBRIDGE_MAX_CONCURRENT_RUNS: '1',
      RUNBRIDGE_QUEUE_POLL_SECONDS: '0.02',
      RUNBRIDGE_LEASE_SECONDS: String(LEASE_SECONDS),
      RUNBRIDGE_SHUTDOWN_GRACE_SECONDS: '1',
      OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
    };
    const providers = [scriptedProvider({ hang: [{ hang: true }] })];
    a = await startTestBridge(env, { logger: logA.logger, providers });
    b = await startTestBridge(env, { providers });
  });

  afterAll(async () => {
    await a?.shutdown();
    await b?.shutdown();
    await receiver?.close();
    await redis?.stop();
  });

  /** Starts a run of the hanging model on `bridge`, which executes it there (its one slot was free). */
  async function occupy(bridge: TestBridge): Promise<string> {
    const runId = await bridge.startRun({ model: 'scripted:hang' });
    await eventually(async () => (await snapshotOf(bridge, runId)).status === 'running', 'the run playing');
    return runId;
  }

  it('keeps one trace for a run one instance starts and the other executes, and each counts the shared queue', async () => {
    const holdingA = await occupy(a);
    const holdingB = await occupy(b);
    // Both instances are full: the run waits in the shared queue, made by A's request span.
    const runId = await a.startRun(
      { env: 'arith' },
      { headers: { traceparent: `00-${CALLER_TRACE}-${CALLER_SPAN}-01` } },
    );
    for (const bridge of [a, b]) {
      const scrape = readScrape(await (await bridge.fetch('/metrics')).text());
      expect(scrape.value('runbridge_runs_queued')).toBe(1);
      expect(scrape.value('runbridge_runs_running')).toBe(1);
    }
    // B's slot frees up first: B claims the run while A is still full.
    await b.fetch(`/v1/runs/${holdingB}/cancel`, { method: 'POST', headers: json, body: '{}' });
    await a.readEvents(runId);
    await a.fetch(`/v1/runs/${holdingA}/cancel`, { method: 'POST', headers: json, body: '{}' });
    const snapshot: RunSnapshot = await snapshotOf(a, runId);
    expect(snapshot).toMatchObject({ status: 'completed', trace_id: CALLER_TRACE });
    // Each instance counts what it executed: A its hanging run, B its own and the one it claimed.
    const started = async (bridge: TestBridge) =>
      readScrape(await (await bridge.fetch('/metrics')).text()).value('runbridge_runs_started_total', { env: 'arith' });
    expect([await started(a), await started(b)]).toEqual([1, 2]);

    // Each instance exports its own spans, in batches (within 5 s).
    const [request, agent] = await eventually(() => {
      const spans = receiver.spans.filter((span) => span.traceId === CALLER_TRACE);
      const found = ['POST /v1/runs', 'invoke_agent arith'].map((name) => spans.find((span) => span.name === name));
      return found.every((span) => span !== undefined) && found;
    }, "A's request span and B's run span");
    expect(request?.parentSpanId).toBe(CALLER_SPAN);
    expect(agent?.parentSpanId).toBe(request?.spanId);
    expect(agent?.resource['service.instance.id']).toMatch(/^i_/);
    expect(agent?.resource['service.instance.id']).not.toBe(request?.resource['service.instance.id']);
  });

  it('logs losing Redis, finding it again, and the lease that lapsed meanwhile', async () => {
    await redis.kill();
    await eventually(() => logA.messages().includes('Redis connection lost; reconnecting'), 'the loss logged');
    // Down longer than a lease period: the lease lapses, which is what is checked.
    await new Promise((resolve) => setTimeout(resolve, LEASE_SECONDS * 2000));
    await redis.start();
    await eventually(() => logA.messages().includes('Redis connection restored'), 'the return logged');
    const lapsed = await eventually(
      () => logA.lines().find((line) => line.msg.includes('lapsed')),
      'the lapsed lease logged',
    );
    expect(lapsed).toMatchObject({ level: 'warn', instance: expect.stringMatching(/^i_/) });
    expect(logA.lines().find((line) => line.msg === 'Redis connection lost; reconnecting')).toMatchObject({
      level: 'error',
      redis: expect.stringContaining('127.0.0.1'),
    });
  });
});
