import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunEvent } from '../../src/protocol/run-events.js';
import { assertEventOrder } from '../../src/protocol/verify-event-order.js';
import { eventually } from '../support/eventually.js';
import { type FakeVendorServer, startFakeVendorServer } from '../support/fake-vendor-server.js';
import { followRun } from '../support/follow-run.js';
import { type HoldingTcpProxy, startHoldingTcpProxy } from '../support/holding-tcp-proxy.js';
import { type BridgeFetch, readRecords, startRollout } from '../support/rollout-client.js';
import {
  type Cluster,
  type Instance,
  OVER_HTTP,
  postRun,
  readEvents,
  snapshotOf,
  startCluster,
} from './serve-cluster.js';

/**
 * Redis stalling while runs write their logs (docs/deployment.md, "What survives which failure"): a
 * bridge whose appends timed out finds out what Redis holds and carries on, so no run is stranded —
 * every run ends, in Redis as where it executes, every stream closes with that end, the snapshot and
 * `/health` agree, and the bridge takes new runs. Times are the defaults scaled down (a command
 * timeout of 0.5 s for 2 s, a lease of 2 s for 15 s), keeping their ratios: a stall of half the
 * command timeout, of 2.5 times it, and one longer than the lease.
 */
const LEASE_MS = 2000;
const TIMEOUT_MS = 500;
/** The OpenAI-compatible model: its answer streams a frame every PACE_MS, so a run writes through the stall. */
const PACE_MS = 400;
const MODEL = 'openai:gpt-4.1-mini';
const TERMINAL = /^run\.(completed|failed|cancelled)$/;

const on =
  (instance: Instance): BridgeFetch =>
  (path, init) =>
    fetch(`${instance.url}${path}`, init);

/** The lines of `output` a bridge logged about run `runId` (its logs are JSON lines). */
function linesAbout(output: string, runId: string): Array<{ msg: string; level: number }> {
  return output
    .split('\n')
    .filter((line) => line.startsWith('{') && line.includes(runId))
    .map((line) => JSON.parse(line) as { msg: string; level: number });
}

describe.each<{ setup: string; env: Record<string, string> }>([
  { setup: 'one bridge on Redis', env: {} },
  { setup: 'serve --workers 2', env: { RUNBRIDGE_WORKERS: '2' } },
])('Redis stalling while runs write ($setup)', ({ env }) => {
  let cluster: Cluster;
  let vendor: FakeVendorServer;
  let proxy: HoldingTcpProxy;
  let bridge: Instance;

  beforeAll(async () => {
    vendor = await startFakeVendorServer();
    vendor.reply('POST /v1/chat/completions', { kind: 'stream', fixture: 'openai-chat/text.sse', paceMs: PACE_MS });
    cluster = await startCluster(0);
    proxy = await startHoldingTcpProxy(cluster.redis.port);
    bridge = await cluster.add('bridge', {
      ...env,
      // Through a proxy that can hold the bytes, so the network can stall as well as Redis.
      RUNBRIDGE_REDIS_URL: `redis://127.0.0.1:${proxy.port}`,
      RUNBRIDGE_LEASE_SECONDS: String(LEASE_MS / 1000),
      RUNBRIDGE_REDIS_COMMAND_TIMEOUT_SECONDS: String(TIMEOUT_MS / 1000),
      OPENAI_BASE_URL: `${vendor.url}/v1`,
    });
  }, 60_000);
  afterAll(async () => {
    cluster?.redis.thaw();
    proxy?.release();
    await cluster?.stop();
    await proxy?.close();
    await vendor?.close();
  });

  /**
   * Starts three runs, lets them stream, stalls the store with `stall` (which resolves once it answers
   * again), and checks that every run ended everywhere with one end, and that the bridge serves on.
   */
  async function throughStall(stall: () => Promise<void>): Promise<RunEvent[][]> {
    const runs = await Promise.all([1, 2, 3].map(() => postRun(bridge, { env: 'arith', model: MODEL })));
    const streams = runs.map(({ runId }) => followRun(bridge.url, runId));
    await eventually(
      () => streams.every((stream) => stream.events.some((event) => event.event === 'message.delta')),
      'every run streaming its answer',
    );
    await stall();
    const logs = await Promise.all(streams.map((stream) => stream.done));
    for (const [index, log] of logs.entries()) {
      const { runId } = runs[index]!;
      assertEventOrder(log);
      const end = log.at(-1)!;
      expect(end.event).toMatch(TERMINAL);
      // Every reader agrees with the stream: the snapshot, and the log read again whole. A run Redis lost
      // is unknown to the other workers until the one executing it writes it back, as Redis answers again.
      const ended = { status: end.event.replace('run.', ''), last_seq: end.seq };
      const snapshot = await eventually(
        async () => {
          const read = await snapshotOf(bridge, runId);
          return read.status === ended.status && read;
        },
        `the snapshot of ${runId} to say it ended`,
        OVER_HTTP,
      );
      expect(snapshot).toMatchObject(ended);
      expect(await readEvents(bridge, runId)).toEqual(log);
      // One true line per ending (written once Redis holds the end), and no run given up on.
      const endLines = await eventually(() => {
        const lines = linesAbout(bridge.output(), runId).filter((line) => line.msg === 'run ended');
        return lines.length > 0 && lines;
      }, `the end line of ${runId}`);
      expect(endLines).toHaveLength(1);
      expect(
        linesAbout(bridge.output(), runId).filter((line) => /can no longer be stored|elsewhere/.test(line.msg)),
      ).toEqual([]);
    }
    await eventually(
      async () => {
        const health = (await (await fetch(`${bridge.url}/health`)).json()) as { runs?: { running: number } };
        return health.runs?.running === 0;
      },
      '/health to count no running run',
      OVER_HTTP,
    );
    const next = await postRun(bridge, { env: 'arith', model: 'offline' });
    expect(next.status).toBe(202);
    expect((await followRun(bridge.url, next.runId).done).at(-1)?.event).toBe('run.completed');
    return logs;
  }

  const frozenFor = (ms: number) => async () => {
    cluster.redis.freeze();
    await new Promise((resolve) => setTimeout(resolve, ms));
    cluster.redis.thaw();
  };

  it('frozen for half the command timeout: the runs complete as if nothing happened', async () => {
    const logs = await throughStall(frozenFor(TIMEOUT_MS / 2));
    for (const log of logs) expect(log.at(-1)?.event).toBe('run.completed');
  }, 60_000);

  it('frozen for 2.5 times the command timeout (within the lease): the runs complete, their appends resumed where Redis was', async () => {
    const logs = await throughStall(frozenFor(TIMEOUT_MS * 2.5));
    for (const log of logs) expect(log.at(-1)?.event).toBe('run.completed');
  }, 60_000);

  it('frozen for longer than the lease: every run ends, and none is taken for lost', async () => {
    const logs = await throughStall(frozenFor(LEASE_MS * 1.5));
    for (const log of logs) expect(log.at(-1)?.event).toBe('run.completed');
  }, 60_000);

  it('a network that holds every byte for longer than the lease: every run ends', async () => {
    const logs = await throughStall(async () => {
      proxy.hold();
      await new Promise((resolve) => setTimeout(resolve, LEASE_MS * 1.5));
      proxy.release();
    });
    for (const log of logs) expect(log.at(-1)?.event).toBe('run.completed');
  }, 60_000);

  it('frozen for longer than the lease while a rollout batch plays: every pair is recorded once, and the batch completes', async () => {
    const asked = vendor.requests.length;
    const id = await startRollout(on(bridge), { env: 'arith', split: 'train', tasks: '0:4', samples: 1, model: MODEL });
    await eventually(() => vendor.requests.length >= asked + 4, 'every pair asking the model');
    await frozenFor(LEASE_MS * 1.5)();
    const records = await eventually(
      async () => {
        const snapshot = (await (await fetch(`${bridge.url}/v1/rollouts/${id}`)).json()) as { status?: string };
        return snapshot.status === 'completed' && readRecords(on(bridge), id);
      },
      'the batch to complete',
      OVER_HTTP,
    );
    expect(records.map((record) => record.task.index).sort()).toEqual([0, 1, 2, 3]);
    // Played through: no pair's run was ended as lost and played again.
    expect(records.map((record) => [record.status, record.attempt])).toEqual(Array(4).fill(['completed', 1]));
  }, 60_000);

  it('Redis restarted without its data: the runs are written back and complete', async () => {
    const logs = await throughStall(() => cluster.redis.wipe());
    for (const log of logs) expect(log.at(-1)?.event).toBe('run.completed');
  }, 60_000);
});
