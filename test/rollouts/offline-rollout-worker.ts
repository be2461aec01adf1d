import { appendFileSync, existsSync, writeFileSync } from 'node:fs';
import { builtinEnvironments } from '../../adapters/environments/builtin-environments.js';
import { createOfflineProvider } from '../../adapters/models/offline/offline-provider.js';
import type { Model } from '../../src/models/model.js';
import { OrsClient } from '../../src/ors/client/ors-client.js';
import { createOrsServer } from '../../src/ors/server/create-ors-server.js';
import type { RolloutWorkerRuntime } from '../../src/rollouts/workers/rollout-worker-setup.js';

/** What the tests hand each worker thread. */
export interface OfflineWorkerData {
  /**
   * The thread that first gets a model call with this seed ends itself (`process.exit` in a worker
   * thread ends the thread), after writing `crashMarker`, so only the first attempt dies.
   */
  crashSeed?: number;
  crashMarker?: string;
  /** The thread that gets a model call with this seed ends itself, every time. */
  alwaysCrashSeed?: number;
  /** Each thread adds a line to this file once it is set up, and another with the episodes it played as it closes. */
  journal?: string;
}

/**
 * A rollout worker's setup for tests: the offline model without token delays, and a built-in ORS
 * server of its own on loopback.
 */
export async function setUpRolloutWorker(data: unknown): Promise<RolloutWorkerRuntime> {
  const { crashSeed, crashMarker, alwaysCrashSeed, journal } = (data ?? {}) as OfflineWorkerData;
  const server = createOrsServer({ environments: builtinEnvironments });
  const url = await server.listen(0, '127.0.0.1');
  const offline = createOfflineProvider({ tokenDelayMs: 0 }).create('');
  // An episode's seed is its own: one seed a played episode.
  const seeds = new Set<number | undefined>();
  const model: Model = {
    id: offline.id,
    stream(request) {
      seeds.add(request.sampling.seed);
      if (alwaysCrashSeed !== undefined && request.sampling.seed === alwaysCrashSeed) process.exit(1);
      if (crashMarker !== undefined && request.sampling.seed === crashSeed && !existsSync(crashMarker)) {
        writeFileSync(crashMarker, 'crashed');
        process.exit(1);
      }
      return offline.stream(request);
    },
  };
  if (journal !== undefined) appendFileSync(journal, 'set up\n');
  return {
    model,
    ors: new OrsClient({ baseUrl: url }),
    async close() {
      if (journal !== undefined) appendFileSync(journal, `played ${seeds.size}\n`);
      await server.close();
    },
  };
}
