import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createOfflineProvider } from '../../adapters/models/offline/offline-provider.js';
import type { ModelProvider } from '../../src/models/model.js';
import { RolloutSnapshotSchema } from '../../src/rollouts/rollout-snapshot.js';
import { newRunId } from '../../src/runs/run-registry.js';
import { RedisConnection } from '../../src/store/redis/redis-connection.js';
import { RedisKeys } from '../../src/store/redis/redis-keys.js';
import { RedisRolloutStore } from '../../src/store/redis/redis-rollout-store.js';
import { eventually } from '../support/eventually.js';
import { startTestRedis, type TestRedis } from '../support/redis-server.js';
import { readRecords, startRollout } from '../support/rollout-client.js';
import { startTestBridge, type TestBridge } from '../support/start-test-bridge.js';

/**
 * The rollout service's sweep (docs/protocol.md §14.2) mends what an instance's death cut short. Here
 * the dead instance is a second connection to the bridge's Redis that moves a pair to a run it never
 * submits, as an instance that died between the two would have.
 */
describe('the rollout sweep', () => {
  let redis: TestRedis;
  let bridge: TestBridge;
  let connection: RedisConnection;
  let store: RedisRolloutStore;
  let modelCalls = 0;
  let release!: () => void;
  const released = new Promise<void>((resolve) => {
    release = resolve;
  });

  beforeAll(async () => {
    redis = await startTestRedis();
    const prefix = redis.prefix();
    // The offline model, whose calls wait until the test releases them.
    const offline = createOfflineProvider({ tokenDelayMs: 0 });
    const gated: ModelProvider = {
      name: 'gated',
      listedModels: [],
      defaultModel: '',
      create: (name) => {
        const model = offline.create(name);
        // Named as asked for: a batch stores the model's id, and its pairs resolve it again.
        return {
          id: 'gated',
          async *stream(request) {
            modelCalls++;
            await released;
            yield* model.stream(request);
          },
        };
      },
    };
    bridge = await startTestBridge(
      { RUNBRIDGE_REDIS_URL: redis.url, RUNBRIDGE_REDIS_PREFIX: prefix },
      { providers: [gated] },
    );
    connection = new RedisConnection(redis.url, { commandTimeoutMs: 2000 });
    await connection.connect(10_000);
    store = new RedisRolloutStore({ connection, keys: new RedisKeys(prefix), expireMs: 600_000 });
  });
  afterAll(async () => {
    release();
    await bridge?.shutdown();
    await connection?.close();
    await redis?.stop();
  });

  it('plays again, on the same attempt, a pair whose run was never submitted, once it is missing at two sweeps', async () => {
    const id = await startRollout(bridge.fetch, {
      env: 'arith',
      split: 'train',
      tasks: '0:1',
      samples: 1,
      model: 'gated',
      retries: 0,
    });
    await eventually(() => modelCalls === 1, 'the first run in its model call');
    const [first] = await store.pairs(id);
    expect(first).toMatchObject({ attempt: 1, state: 'open' });
    // An instance moves the pair to a new run and dies before submitting it.
    const lost = newRunId();
    expect(await store.settle(id, 0, first!.run, 1, { kind: 'replace', next: lost }, Date.now())).toBe('retry');
    release();
    await eventually(async () => {
      const run = (await (await bridge.fetch(`/v1/runs/${first!.run}`)).json()) as { status: string };
      return run.status === 'completed';
    }, 'the first run completed');
    const snapshot = async () => RolloutSnapshotSchema.parse(await (await bridge.fetch(`/v1/rollouts/${id}`)).json());
    // The first run's end is stale: its pair is on another run now.
    expect(await snapshot()).toMatchObject({ status: 'queued', completed: 0 });

    await bridge.rollouts.settler.sweep();
    expect(await store.pairs(id)).toEqual([{ run: lost, attempt: 1, state: 'open' }]);
    await bridge.rollouts.settler.sweep();
    const records = await readRecords(bridge.fetch, id);
    expect(records).toHaveLength(1);
    expect(records[0]).toMatchObject({ attempt: 1, status: 'completed', batch_id: id });
    expect(records[0]!.rollout_id).not.toBe(first!.run);
    expect(records[0]!.rollout_id).not.toBe(lost);
    expect(await snapshot()).toMatchObject({ status: 'completed', completed: 1, total: 1 });
    expect(modelCalls).toBeGreaterThanOrEqual(2);
  });
});
