import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { postRollout } from '../support/rollout-client.js';
import { arithEnvironment } from '../support/scripted-ors-environment.js';
import { ScriptedOrsServer } from '../support/scripted-ors-server.js';
import { startTestBridge, type TestBridge } from '../support/start-test-bridge.js';

/** An environment whose train split reports 10⁹ tasks (a sparse list: only the first exists). */
function hugeEnvironment() {
  const environment = arithEnvironment();
  const train: Record<string, unknown>[] = [{ a: 1, b: 2 }];
  train.length = 1_000_000_000;
  return { ...environment, tasks: { ...environment.tasks, train } };
}

/**
 * A batch's task selection is bounded while it is read, by the most pairs the queue could ever hold
 * (docs/rollouts.md, "Bounds"): a selection past it is a 400 `batch_too_large` however it is written,
 * and no selection is expanded into more tasks than that first.
 */
describe('task selections past what a batch may hold', () => {
  let ors: ScriptedOrsServer;
  let bridge: TestBridge;

  beforeAll(async () => {
    ors = await ScriptedOrsServer.start({ environments: { arith: arithEnvironment(), huge: hugeEnvironment() } });
    bridge = await startTestBridge({ ORS_URL: ors.url, RUNBRIDGE_MAX_QUEUED_RUNS: '100' });
  });
  afterAll(async () => {
    await bridge?.shutdown();
    await ors?.close();
  });

  it('refuses "0:" of an environment of 10⁹ tasks with a 400, not a 500', async () => {
    const { status, answer } = await postRollout(bridge.fetch, {
      env: 'huge',
      tasks: '0:',
      samples: 1,
      model: 'offline',
    });
    expect(status).toBe(400);
    expect(answer).toMatchObject({ error: { code: 'batch_too_large', message: expect.stringMatching(/100/) } });
  });

  it('refuses a selection of more pieces than a batch may hold tasks, before reading them', async () => {
    const tasks = Array.from({ length: 120_000 }, () => '0:1000').join(',');
    const { status, answer } = await postRollout(bridge.fetch, { env: 'huge', tasks, samples: 1, model: 'offline' });
    expect(status).toBe(400);
    expect(answer).toMatchObject({ error: { code: 'batch_too_large' } });
  });

  it('counts the tasks of overlapping ranges once, and refuses more pairs than the queue holds', async () => {
    const overlapping = await postRollout(bridge.fetch, {
      env: 'huge',
      tasks: '0:60,20:80,70:99',
      samples: 2,
      model: 'offline',
    });
    expect(overlapping.status).toBe(400);
    expect(overlapping.answer).toMatchObject({
      error: { code: 'batch_too_large', message: expect.stringMatching(/99 tasks, more than the 50/) },
    });
    const list = await postRollout(bridge.fetch, {
      env: 'huge',
      tasks: Array.from({ length: 101 }, (_, i) => i),
      samples: 1,
      model: 'offline',
    });
    expect(list.answer).toMatchObject({ error: { code: 'batch_too_large' } });
  });
});
