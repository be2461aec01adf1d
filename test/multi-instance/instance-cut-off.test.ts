import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunSnapshot } from '../../src/protocol/run-snapshot.js';
import { assertEventOrder } from '../../src/protocol/verify-event-order.js';
import { type CapturedLog, captureLog } from '../support/captured-log.js';
import { eventually } from '../support/eventually.js';
import { followRun } from '../support/follow-run.js';
import { type HoldingTcpProxy, startHoldingTcpProxy } from '../support/holding-tcp-proxy.js';
import { readScrape } from '../support/read-scrape.js';
import { startTestRedis, type TestRedis } from '../support/redis-server.js';
import { singleModelProvider, vendorPause } from '../support/scripted-model.js';
import { startTestBridge, type TestBridge } from '../support/start-test-bridge.js';

/** A model that streams a word every 100 ms, for a minute: a run that writes all along. */
const streaming = singleModelProvider('streaming', async function* (request) {
  for (let word = 0; word < 600; word++) {
    await vendorPause(100, request.signal);
    yield { type: 'text-delta', delta: `word${word} ` };
  }
  yield { type: 'finish', reason: 'stop' };
});

/**
 * One instance cut off from Redis by the network for longer than the lease, while its run writes
 * (docs/deployment.md, "What survives which failure"): the other instance takes it for lost and ends the
 * run with `instance_lost`; once the network is back, the cut-off instance finds its appends refused and
 * stops the run. The ending is told once — logged and counted by the instance that wrote it — and the
 * cut-off instance says what it had played, without a second `run ended` line.
 */
describe('an instance cut off from Redis for longer than the lease', () => {
  let redis: TestRedis;
  let proxy: HoldingTcpProxy;
  let logA: CapturedLog;
  let logB: CapturedLog;
  let a: TestBridge;
  let b: TestBridge;

  beforeAll(async () => {
    redis = await startTestRedis();
    proxy = await startHoldingTcpProxy(redis.port);
    logA = captureLog('info');
    logB = captureLog('info');
    const env = {
      RUNBRIDGE_REDIS_PREFIX: redis.prefix(),
      RUNBRIDGE_LEASE_SECONDS: '1',
      RUNBRIDGE_SWEEP_SECONDS: '0.1',
      RUNBRIDGE_REDIS_COMMAND_TIMEOUT_SECONDS: '0.3',
      RUNBRIDGE_SHUTDOWN_GRACE_SECONDS: '1',
    };
    const providers = [streaming];
    a = await startTestBridge({ ...env, RUNBRIDGE_REDIS_URL: redis.url }, { logger: logA.logger, providers });
    // B reaches Redis through a network the test can stall.
    b = await startTestBridge(
      { ...env, RUNBRIDGE_REDIS_URL: `redis://127.0.0.1:${proxy.port}` },
      { logger: logB.logger, providers },
    );
  });
  afterAll(async () => {
    proxy?.release();
    await a?.shutdown();
    await b?.shutdown();
    await proxy?.close();
    await redis?.stop();
  });

  const failedCount = async (bridge: TestBridge) =>
    readScrape(await (await bridge.fetch('/metrics')).text()).value('runbridge_runs_finished_total', {
      env: 'arith',
      status: 'failed',
    }) ?? 0;

  it('is taken for lost: its run ends instance_lost everywhere, logged and counted once, by the instance that ended it', async () => {
    const before = [await failedCount(a), await failedCount(b)];
    const runId = await b.startRun({ env: 'arith', model: 'streaming' });
    const onA = followRun(a.url, runId);
    await eventually(() => onA.events.some((event) => event.event === 'message.delta'), 'the run streaming on A');

    proxy.hold();
    const seen = await onA.done;
    proxy.release();
    assertEventOrder(seen);
    expect(seen.at(-1)).toMatchObject({ event: 'run.failed', code: 'instance_lost' });

    // B finds its appends refused and stops the run; from then on it serves the end Redis holds.
    await eventually(
      async () => ((await (await b.fetch(`/v1/runs/${runId}`)).json()) as RunSnapshot).status === 'failed',
      'B to serve the end A wrote',
    );
    expect(await b.readEvents(runId)).toEqual(seen);
    const health = (await (await b.fetch('/health')).json()) as { runs: { running: number } };
    expect(health.runs.running).toBe(0);
    const ended = (log: CapturedLog) =>
      log.lines().filter((line) => line.run_id === runId && /^run ended/.test(line.msg));
    await eventually(() => ended(logB).length > 0, "B's line about the run");
    expect(ended(logA)).toMatchObject([{ msg: 'run ended', status: 'failed', code: 'instance_lost' }]);
    expect(ended(logB)).toMatchObject([{ msg: expect.stringMatching(/^run ended elsewhere/), status_here: 'failed' }]);
    expect([await failedCount(a), await failedCount(b)]).toEqual([before[0]! + 1, before[1]]);
    const running = readScrape(await (await b.fetch('/metrics')).text()).value('runbridge_runs_running');
    expect(running).toBe(0);

    // B takes runs again, and they end as they should.
    const next = await b.startRun({ env: 'arith', model: 'offline' });
    expect((await followRun(a.url, next).done).at(-1)?.event).toBe('run.completed');
  }, 60_000);
});
