import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { ModelPart } from '../../src/models/model.js';
import { probeEnvironment } from '../support/probe-environment.js';
import { startTestRedis, type TestRedis } from '../support/redis-server.js';
import { singleModelProvider, vendorPause } from '../support/scripted-model.js';
import { startTestBridge, type TestBridge } from '../support/start-test-bridge.js';

const BOUND = 2;
const WAVES = 3;
const WAVE = 10;

/** A model that answers after `delayMs` and counts the calls it has in flight, as a proxy in front of a vendor would. */
function countingModel(delayMs: number) {
  const counter = { inFlight: 0, most: 0, calls: 0 };
  const stream = async function* (): AsyncGenerator<ModelPart> {
    counter.calls++;
    counter.most = Math.max(counter.most, ++counter.inFlight);
    try {
      await vendorPause(delayMs);
    } finally {
      counter.inFlight--;
    }
    yield { type: 'text-delta', delta: 'done' };
    yield { type: 'usage', usage: { inputTokens: 1, outputTokens: 1 } };
    yield { type: 'finish', reason: 'stop' };
  };
  return { counter, provider: singleModelProvider('counting', stream) };
}

/**
 * Posts `WAVES` waves of `WAVE` runs, each wave at once, to the bridges in turn, without waiting for a wave
 * to end before the next; resolves when every run has ended.
 */
async function postWaves(bridges: TestBridge[]): Promise<void> {
  const runs: Array<{ bridge: TestBridge; id: string }> = [];
  for (let wave = 0; wave < WAVES; wave++) {
    const posted = Array.from({ length: WAVE }, (_, index) => {
      const bridge = bridges[(wave * WAVE + index) % bridges.length]!;
      return bridge.startRun({ model: 'counting' }).then((id) => ({ bridge, id }));
    });
    runs.push(...(await Promise.all(posted)));
  }
  for (const { bridge, id } of runs) {
    const events = await bridge.readEvents(id);
    expect(events.at(-1)?.event).toBe('run.completed');
  }
}

describe('RUNBRIDGE_MAX_CONCURRENT_RUNS', () => {
  let bridges: TestBridge[] = [];
  afterEach(async () => {
    await Promise.all(bridges.map((bridge) => bridge.shutdown()));
    bridges = [];
  });

  it('bounds the model calls in flight exactly, however the runs arrive', async () => {
    const { counter, provider } = countingModel(100);
    const bridge = await startTestBridge(
      { RUNBRIDGE_MAX_CONCURRENT_RUNS: String(BOUND), RUNBRIDGE_DEFAULT_ENV: 'probe' },
      { environments: [probeEnvironment], providers: [provider] },
    );
    bridges.push(bridge);
    await postWaves([bridge]);
    expect(counter.calls).toBe(WAVES * WAVE);
    expect(counter.most).toBe(BOUND);
  });

  describe('on instances sharing Redis', () => {
    let redis: TestRedis;
    beforeAll(async () => {
      redis = await startTestRedis();
    });
    afterAll(async () => {
      await redis?.stop();
    });

    it('bounds each instance exactly', async () => {
      const env = {
        RUNBRIDGE_MAX_CONCURRENT_RUNS: String(BOUND),
        RUNBRIDGE_DEFAULT_ENV: 'probe',
        RUNBRIDGE_REDIS_URL: redis.url,
        RUNBRIDGE_REDIS_PREFIX: redis.prefix(),
      };
      const models = [countingModel(100), countingModel(100)];
      for (const { provider } of models) {
        bridges.push(await startTestBridge(env, { environments: [probeEnvironment], providers: [provider] }));
      }
      await postWaves(bridges);
      expect(models[0]!.counter.calls + models[1]!.counter.calls).toBe(WAVES * WAVE);
      for (const { counter } of models) expect(counter.most).toBeLessThanOrEqual(BOUND);
      expect(Math.max(...models.map(({ counter }) => counter.most))).toBe(BOUND);
    });
  });
});
