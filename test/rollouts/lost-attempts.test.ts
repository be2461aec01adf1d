import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createOfflineProvider } from '../../adapters/models/offline/offline-provider.js';
import { RunbridgeError } from '../../src/errors.js';
import type { ModelProvider } from '../../src/models/model.js';
import { RolloutSnapshotSchema } from '../../src/rollouts/rollout-snapshot.js';
import { readRecords, startRollout } from '../support/rollout-client.js';
import { startTestBridge, type TestBridge } from '../support/start-test-bridge.js';

/**
 * A pair whose attempt ended with the instance playing it (`instance_lost`) is played again once,
 * not blindly (docs/rollouts.md, "The service"): what killed the instance may be the pair itself, and a
 * retry would only play the crash again. A second such loss records the pair as failed, whatever
 * retries are left; the batch counts its lost attempts.
 */

const BATCH = { env: 'arith', split: 'train', tasks: '0:2', samples: 1 };

/** Pairs whose attempts the instance dies under: every attempt (`always`) or the first of each seed (`once`). */
function dyingProvider(name: string, dies: 'always' | 'once'): ModelProvider {
  const offline = createOfflineProvider({ tokenDelayMs: 0 });
  const died = new Set<number | undefined>();
  return {
    name,
    listedModels: [],
    defaultModel: '',
    create: (model) => {
      const inner = offline.create(model);
      return {
        id: name,
        async *stream(request) {
          const seed = request.sampling.seed;
          if (dies === 'always' || !died.has(seed)) {
            died.add(seed);
            throw new RunbridgeError('The instance executing this run died.', { code: 'instance_lost' });
          }
          yield* inner.stream(request);
        },
      };
    },
  };
}

describe('a rollout pair whose attempt ended with its instance', () => {
  let bridge: TestBridge;

  beforeAll(async () => {
    bridge = await startTestBridge(
      { RUNBRIDGE_MAX_CONCURRENT_RUNS: '4' },
      { providers: [dyingProvider('doomed', 'always'), dyingProvider('unlucky', 'once')] },
    );
  });
  afterAll(() => bridge?.shutdown());

  const snapshotOf = async (id: string) =>
    RolloutSnapshotSchema.parse(await (await bridge.fetch(`/v1/rollouts/${id}`)).json());

  it('is played again once, then recorded as failed after a second loss, whatever retries are left', async () => {
    const id = await startRollout(bridge.fetch, { ...BATCH, model: 'doomed', retries: 3 });
    const records = await readRecords(bridge.fetch, id);
    expect(records).toHaveLength(2);
    for (const record of records) {
      expect(record).toMatchObject({ status: 'failed', attempt: 2, error: { code: 'instance_lost' } });
    }
    expect(await snapshotOf(id)).toMatchObject({ status: 'completed', failed: 2, lost_attempts: 4 });
  });

  it('is played again once, and recorded as it then ends', async () => {
    const id = await startRollout(bridge.fetch, { ...BATCH, model: 'unlucky', retries: 3, seed: 5 });
    const records = await readRecords(bridge.fetch, id);
    expect(records.map((record) => [record.status, record.attempt])).toEqual([
      ['completed', 2],
      ['completed', 2],
    ]);
    expect(await snapshotOf(id)).toMatchObject({ completed: 2, failed: 0, lost_attempts: 2 });
  });

  it('is not played again without retries', async () => {
    const id = await startRollout(bridge.fetch, { ...BATCH, model: 'doomed', retries: 0 });
    const records = await readRecords(bridge.fetch, id);
    expect(records.map((record) => [record.status, record.attempt])).toEqual([
      ['failed', 1],
      ['failed', 1],
    ]);
    expect(await snapshotOf(id)).toMatchObject({ failed: 2, lost_attempts: 2 });
  });
});
