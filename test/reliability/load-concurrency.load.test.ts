import { afterEach, describe, expect, it } from 'vitest';
import { createOfflineProvider } from '../../adapters/models/offline/offline-provider.js';
import type { ModelPart, ModelProvider } from '../../src/models/model.js';
import type { RunEvent } from '../../src/protocol/run-events.js';
import { assertEventOrder } from '../../src/protocol/verify-event-order.js';
import { eventually } from '../support/eventually.js';
import { singleModelProvider } from '../support/scripted-model.js';
import { startTestBridge, type TestBridge } from '../support/start-test-bridge.js';

/**
 * Load held by one bridge process (docs/protocol.md §6; bigger numbers belong in `bench/`): 500 concurrent
 * runs with a subscriber each, plus 200 subscribers on one run, every log complete and ordered.
 */

const bridges: TestBridge[] = [];
afterEach(async () => {
  for (const bridge of bridges.splice(0)) await bridge.shutdown();
});

/** The offline model (no token delay) held at its first turn until `gate` opens. */
function gatedOfflineProvider(gate: Promise<void>): ModelProvider {
  const offline = createOfflineProvider({ tokenDelayMs: 0 }).create('');
  return singleModelProvider('gated', async function* (request): AsyncGenerator<ModelPart> {
    await gate;
    yield* offline.stream(request);
  });
}

describe('500 concurrent runs and 200 subscribers on one run', () => {
  it('gives every subscriber the complete, ordered log of its run', async () => {
    let open!: () => void;
    const gate = new Promise<void>((resolve) => (open = resolve));
    const bridge = await startTestBridge(
      { RUNBRIDGE_MAX_CONCURRENT_RUNS: '501' },
      { providers: [gatedOfflineProvider(gate)] },
    );
    bridges.push(bridge);

    const hub = await bridge.startRun({ env: 'workspace', model: 'gated', task: { split: 'train', index: 3 } });
    const hubReaders = Array.from({ length: 200 }, () => bridge.readEvents(hub));
    const runs = await Promise.all(
      Array.from({ length: 500 }, (_, index) =>
        bridge.startRun({ env: index % 2 === 0 ? 'arith' : 'workspace', task: { split: 'train', index } }),
      ),
    );
    const readers = runs.map((runId) => bridge.readEvents(runId));
    await eventually(() => bridge.registry.localStats().subscribers >= 200, '200 subscribers');
    open();

    const logs = await Promise.all(readers);
    for (const [index, log] of logs.entries()) {
      assertEventOrder(log);
      expect(log).toEqual((await bridge.registry.open(runs[index]!, 'local')).log.events());
      expect(log.at(-1)?.event).toBe('run.completed');
    }
    const hubLog = (await bridge.registry.open(hub, 'local')).log.events();
    assertEventOrder(hubLog);
    expect(hubLog.at(-1)?.event).toBe('run.completed');
    const hubLogs = await Promise.all(hubReaders);
    for (const log of hubLogs) expect(log).toEqual(hubLog);
    expect(bridge.orsServer!.activeSessionIds()).toEqual([]);
    const events = logs.reduce((sum, log: RunEvent[]) => sum + log.length, 0);
    console.info(
      `load: 500 concurrent runs (${events} events) + 200 subscribers on one run (${hubLog.length} events each), all complete and ordered`,
    );
  }, 180_000);
});
