import type Router from 'koa-router';
import { createOfflineProvider } from '../../adapters/models/offline/offline-provider.js';
import { loadConfig } from '../../src/config/index.js';
import { Authenticator } from '../../src/http/authenticate.js';
import { createApp } from '../../src/http/create-app.js';
import { MetricsAccess } from '../../src/http/metrics-access.js';
import { StreamSlots } from '../../src/http/stream-slots.js';
import { UiAssets } from '../../src/http/ui-assets.js';
import { ModelCatalog } from '../../src/models/model-catalog.js';
import { ModelRegistry } from '../../src/models/model-registry.js';
import { OrsClient } from '../../src/ors/client/ors-client.js';
import { RolloutService } from '../../src/rollouts/rollout-service.js';
import { EnvCatalog } from '../../src/runs/env-catalog.js';
import { RunRegistry } from '../../src/runs/run-registry.js';
import { MemoryRolloutStore } from '../../src/store/memory/memory-rollout-store.js';
import { MemoryRunStore } from '../../src/store/memory/memory-run-store.js';
import { storeLimits } from '../../src/store/open-run-store.js';
import { createTelemetry } from '../../src/telemetry/create-telemetry.js';
import { silentLogger } from '../../src/telemetry/logger.js';

/** What the app under test is made with: the settings that decide which routes are mounted. */
export interface MountedRoutesOptions {
  /** The chat page (`GET /`, `GET /ui/:file`); default on. */
  ui?: boolean;
  /** `GET /metrics`; default on. */
  metrics?: boolean;
}

/**
 * Every route the bridge's Koa app mounts, read from the routers among its middleware, each as
 * `METHOD /path` with koa-router's `:param` spelling (a GET's HEAD left out: koa-router adds it to every
 * GET). Nothing is listened on; the app's registry and batch service are stopped before it returns.
 */
export async function mountedRoutes({ ui = true, metrics = true }: MountedRoutesOptions = {}): Promise<string[]> {
  const config = loadConfig({});
  const store = new MemoryRunStore(storeLimits(config));
  const nowhere = () => new OrsClient({ baseUrl: 'http://127.0.0.1:9' });
  const registry = new RunRegistry({
    ors: nowhere(),
    models: new ModelRegistry([createOfflineProvider()], 'offline'),
    store,
    streams: store.streams,
    catalog: new EnvCatalog(nowhere()),
    sweepMs: config.sweepMs,
    limits: { maxConcurrentRuns: 1, maxEventsPerRun: 10, runTimeoutMs: 1000, toolOutputEventChars: 10 },
  });
  const rollouts = new RolloutService({
    registry,
    ors: nowhere(),
    models: new ModelRegistry([createOfflineProvider()], 'offline'),
    store: new MemoryRolloutStore(),
    maxPairs: config.maxQueuedRuns,
    retentionMs: config.retentionMs,
    sweepMs: config.sweepMs,
    log: silentLogger,
  });
  try {
    const app = createApp({
      registry,
      rollouts,
      models: new ModelCatalog(new ModelRegistry([createOfflineProvider()], 'offline'), {
        maxModels: 10,
        maxBytes: 1000,
      }),
      authenticator: new Authenticator([]),
      environments: {
        list: async () => [],
        health: async () => ({ status: 'ok' }),
        defaultEnv: async () => 'arith',
        tools: async () => [],
      },
      ui: ui ? new UiAssets() : undefined,
      streams: new StreamSlots({ maxStreams: 10, maxStreamsPerKey: 10 }),
      config: { ...config, store: 'memory', instance: undefined },
      shutdownSignal: new AbortController().signal,
      now: Date.now,
      telemetry: createTelemetry({ logger: silentLogger, metrics, tracing: undefined }),
      metricsAccess: new MetricsAccess(undefined, []),
    });
    const routers = app.middleware.flatMap((middleware) => {
      const router = (middleware as { router?: Router }).router;
      return router ? [router] : [];
    });
    return routers.flatMap((router) =>
      router.stack.flatMap((layer) =>
        layer.methods.filter((method) => method !== 'HEAD').map((method) => `${method} ${layer.path}`),
      ),
    );
  } finally {
    await rollouts.stop();
    await registry.shutdown(0);
  }
}
