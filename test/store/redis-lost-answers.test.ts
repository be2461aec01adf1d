import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { RunEventInput } from '../../src/protocol/run-events.js';
import { recordBytes } from '../../src/runs/run-record.js';
import { RedisConnection } from '../../src/store/redis/redis-connection.js';
import { RedisRunStore } from '../../src/store/redis/redis-run-store.js';
import { SealedSecrets } from '../../src/store/redis/sealed-secrets.js';
import { startTestRedis, type TestRedis } from '../support/redis-server.js';
import {
  completed,
  type ExecutedRun,
  type Instance,
  play,
  StoreHarness,
  started,
} from './run-store-contract/store-harness.js';

/** How long a command may take here: short, so a frozen Redis fails one quickly. */
const TIMEOUT_MS = 100;

const delta = (text: string): RunEventInput => ({ event: 'message.delta', delta: text, turn: 1 });

/**
 * A run's writer on a Redis that loses its answers (docs/protocol.md §8.4): an append that timed out on
 * a frozen Redis still runs once it wakes, so the writer's next append finds the log further on than it
 * thought; a Redis restarted without its data has lost the run. Either way the writer finds out what
 * Redis holds and goes on: each event is stored once and counted once, and the run ends in Redis as it
 * did here — never given up on while this instance executes it.
 */
describe('the Redis store when answers are lost', () => {
  let redis: TestRedis;
  let client: Redis;
  let prefix = '';
  beforeAll(async () => {
    redis = await startTestRedis();
    client = new Redis(redis.url);
  });
  afterAll(async () => {
    client?.disconnect();
    await redis?.stop();
  });
  afterEach(() => redis.thaw());

  const h = new StoreHarness({
    shared: true,
    async open({ limits, now }) {
      prefix = redis.prefix();
      const connection = new RedisConnection(redis.url, { commandTimeoutMs: TIMEOUT_MS });
      await connection.connect(10_000);
      const store = new RedisRunStore({
        connection,
        prefix,
        instance: 'i_here',
        limits,
        leaseMs: 600_000,
        queuePollMs: 60_000,
        secrets: new SealedSecrets(randomBytes(32)),
        now,
      });
      return { store, streams: store.streams };
    },
  });

  /** Resolves once Redis holds run `runId`'s log up to `seq`. */
  async function storedUpTo(runId: string, seq: number): Promise<void> {
    while (Number(await client.hget(`${prefix}run:${runId}`, 'last_seq')) < seq) {
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
  }

  /**
   * Freezes Redis, plays `inputs` into `run` (its writer sends them, and the command times out), and
   * thaws Redis once a command sent after them has timed out too: the append waits, unanswered, in the
   * connection, and runs as soon as Redis wakes.
   */
  async function playWhileFrozen(instance: Instance, run: ExecutedRun, ...inputs: RunEventInput[]): Promise<void> {
    redis.freeze();
    play(run.log, ...inputs);
    // The writer sends on the turn of the event loop after the events; what is sent after it times out later.
    await new Promise((resolve) => setImmediate(resolve));
    await new Promise((resolve) => setImmediate(resolve));
    await expect(instance.store.stats()).rejects.toThrow();
    redis.thaw();
  }

  /** Checks that Redis holds `run`'s log whole, each event once, and counts its bytes once. */
  async function expectHeldOnce({ record, log }: ExecutedRun): Promise<void> {
    const stored = await client.xrange(`${prefix}run:${record.id}:log`, '-', '+');
    expect(stored.map(([, fields]) => fields[1])).toEqual(log.entries.map((entry) => entry.json));
    const bytes = recordBytes(record) + log.bytes;
    expect(Number(await client.hget(`${prefix}run:${record.id}`, 'bytes'))).toBe(bytes);
    expect(Number(await client.hget(`${prefix}sizes`, record.id))).toBe(bytes);
    expect(Number(await client.get(`${prefix}bytes`))).toBe(bytes);
    expect(await client.hget(`${prefix}run:${record.id}`, 'state')).toBe('ended');
    expect(await client.hlen(`${prefix}running`)).toBe(0);
  }

  it('goes on after an append that landed though its answer was lost, storing and counting each event once', async () => {
    const here = await h.open();
    const run = await h.start(here, 'key_a');
    play(run.log, started(run.record));
    await storedUpTo(run.record.id, 0);
    await playWhileFrozen(here, run, delta('one'), delta('two'), delta('three'));
    play(run.log, completed());
    expect(await run.tracked).toBe(true);
    await expectHeldOnce(run);
  });

  it('takes a terminal append that landed though its answer was lost for the end it wrote', async () => {
    const here = await h.open();
    const run = await h.start(here, 'key_a');
    play(run.log, started(run.record), delta('one'));
    await storedUpTo(run.record.id, 1);
    await playWhileFrozen(here, run, completed());
    expect(await run.tracked).toBe(true);
    await expectHeldOnce(run);
  });

  it('writes a run whose record vanished back, with its whole log, and goes on', async () => {
    const here = await h.open();
    const run = await h.start(here, 'key_a');
    play(run.log, started(run.record), delta('one'));
    await storedUpTo(run.record.id, 1);
    // Redis restarted without its data.
    await client.flushall();
    play(run.log, delta('two'), completed());
    expect(await run.tracked).toBe(true);
    await expectHeldOnce(run);
    expect((await here.store.list('key_a', { limit: 5 })).data).toMatchObject([
      { run_id: run.record.id, status: 'completed' },
    ]);
  });
});
