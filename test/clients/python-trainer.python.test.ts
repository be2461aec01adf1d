import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createOfflineProvider } from '../../adapters/models/offline/offline-provider.js';
import type { ModelProvider } from '../../src/models/model.js';
import { runExample } from '../support/run-example.js';
import { startTestBridge, type TestBridge } from '../support/start-test-bridge.js';

const SCRIPT = fileURLToPath(new URL('../../examples/python/train_loop.py', import.meta.url));
const KEY = 'trainer-key-0123456789';

/**
 * `examples/python/train_loop.py` — a trainer with `requests` (docs/rollouts.md, "The service"): each
 * step asks for a batch with its policy version, reads the first GRPO groups and cancels the rest.
 */
describe('a Python training loop on the rollout service', () => {
  let bridge: TestBridge;

  beforeAll(async () => {
    // The offline model at a human pace: the batch is still playing when the trainer has its groups.
    // Its models are named as asked for (`paced`): a batch stores the model's id, and its pairs resolve it again.
    const offline = createOfflineProvider({ tokenDelayMs: 1 });
    const paced: ModelProvider = {
      ...offline,
      name: 'paced',
      create: (name) => {
        const model = offline.create(name);
        return { id: 'paced', stream: (request) => model.stream(request) };
      },
    };
    bridge = await startTestBridge(
      { RUNBRIDGE_API_KEYS: KEY, RUNBRIDGE_MAX_CONCURRENT_RUNS: '2' },
      { apiKey: KEY, providers: [paced] },
    );
  });
  afterAll(() => bridge.shutdown());

  it('trains two steps on the first three whole groups of each batch, each of its own policy, and cancels the rest', async () => {
    const { stdout } = await runExample('python3', [SCRIPT], {
      RUNBRIDGE_URL: bridge.url,
      RUNBRIDGE_API_KEY: KEY,
      RUNBRIDGE_MODEL: 'paced',
      STEPS: '2',
      TASKS: '8',
      SAMPLES: '4',
      GROUPS: '3',
    });
    const lines = stdout.trimEnd().split('\n');
    const groups = lines.filter((line) => / group /.test(line));
    expect(groups).toHaveLength(6);
    for (const [n, line] of groups.entries()) {
      const step = n < 3 ? 0 : 1;
      expect(line).toMatch(
        new RegExp(
          `^step ${step} policy-${step} group arith/train/\\d+ size 4 mean \\d\\.\\d{3} advantages( [+-]\\d\\.\\d\\d){4}$`,
        ),
      );
      const index = Number(/arith\/train\/(\d+)/.exec(line)![1]);
      expect(index).toBeGreaterThanOrEqual(step * 8);
      expect(index).toBeLessThan(step * 8 + 8);
    }
    const batches = lines.filter((line) => / batch /.test(line));
    expect(batches).toHaveLength(2);
    for (const line of batches) {
      const [, id, status, recorded] = /^step \d batch (ro_\w+) (\w+): (\d+) of 32 recorded$/.exec(line)!;
      const snapshot = (await (await bridge.fetch(`/v1/rollouts/${id}`)).json()) as {
        status: string;
        policy_version: string;
      };
      // Reading stopped after three groups: the rest was cancelled before every pair was in.
      expect(status).toBe('cancelled');
      expect(snapshot.status).toBe('cancelled');
      expect(Number(recorded)).toBeGreaterThanOrEqual(12);
      expect(Number(recorded)).toBeLessThan(32);
    }
  });
});
