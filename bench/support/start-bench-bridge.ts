import { loadConfig } from '../../src/config/index.js';
import { type Runbridge, startBridge } from '../../src/main.js';
import type { RunRegistry } from '../../src/runs/run-registry.js';

/** A bench bridge, with its registry to look inside it. */
export type BenchBridge = Runbridge & { registry: RunRegistry };

import type { ModelProvider } from '../../src/models/model.js';
import { createLogger } from '../../src/telemetry/create-logger.js';
import { BENCH_ENV } from '../fakes/bench-environment.js';

/** What a benchmark bridge talks to. */
export interface BenchBridgeOptions {
  /** The fake ORS server (in its own process). */
  orsUrl: string;
  /** The fake model vendor, as `OPENAI_BASE_URL`. */
  modelBaseUrl: string;
  /** Providers besides the configured ones (e.g. the in-process burst model). */
  extraProviders?: ModelProvider[];
  /** Configuration variables over the bench defaults. */
  env?: Record<string, string>;
}

/**
 * Starts a whole bridge in this process, as `runbridge serve` would, pointed at the fake ORS server
 * and the fake model. Limits that would turn load away are raised (concurrency, queue), and
 * subscriber buffers are large enough that no reader in a benchmark is cut off; every other
 * setting is the default.
 */
export async function startBenchBridge(options: BenchBridgeOptions): Promise<BenchBridge> {
  const config = loadConfig({
    PORT: '0',
    HOST: '127.0.0.1',
    ORS_URL: options.orsUrl,
    OPENAI_BASE_URL: options.modelBaseUrl,
    OPENAI_API_KEY: 'bench',
    RUNBRIDGE_DEFAULT_ENV: BENCH_ENV,
    RUNBRIDGE_MAX_CONCURRENT_RUNS: '4096',
    RUNBRIDGE_MAX_QUEUED_RUNS: '100000',
    RUNBRIDGE_SUBSCRIBER_BUFFER_BYTES: String(512 * 1024 * 1024),
    // One owner (no API keys) subscribes to every run of the scale benchmark, up to 1,024 at once.
    RUNBRIDGE_MAX_STREAMS_PER_KEY: '10000',
    ...options.env,
  });
  const { bridge, registry } = await startBridge({
    config,
    providers: options.extraProviders ?? [],
    // Warnings and errors only: the access lines would be part of what is measured.
    logger: createLogger({ level: 'warn', format: 'json', bufferBytes: config.logBufferBytes }),
  });
  return { ...bridge, registry };
}
