import { setMaxListeners } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createA2aPush } from './a2a/push/push-methods.js';
import { PushNotifier, withPushNotifications } from './a2a/push/push-notifier.js';
import { bridgeSecretsOf } from './bridge-secrets-of.js';
import { type Config, ConfigError, episodeCaps } from './config/index.js';
import { openFileLimit } from './config/open-file-limit.js';
import { configuredProviders } from './configured-providers.js';
import { connectOrs } from './connect-ors.js';
import { NotFoundError } from './errors.js';
import { limitConnectionsPerAddress } from './http/address-connections.js';
import { answerClientError } from './http/answer-client-error.js';
import { Authenticator } from './http/authenticate.js';
import { connectionLimits } from './http/connection-limits.js';
import { createApp } from './http/create-app.js';
import { MetricsAccess, metricsTokenProblems } from './http/metrics-access.js';
import { StreamSlots } from './http/stream-slots.js';
import { UiAssets } from './http/ui-assets.js';
import type { ModelProvider } from './models/model.js';
import { ModelCatalog } from './models/model-catalog.js';
import { ModelRegistry } from './models/model-registry.js';
import type { OrsServer } from './ors/server/create-ors-server.js';
import type { AnyEnvironment } from './ors/server/environment-registry.js';
import { PROVIDER_SETUP } from './provider-options.js';
import { RolloutService } from './rollouts/rollout-service.js';
import { EnvCatalog } from './runs/env-catalog.js';
import { RunRegistry } from './runs/run-registry.js';
import { type OpenedStore, openRunStore } from './store/open-run-store.js';
import { createLogger, LOG_DRAIN_MS, type OwnLogger } from './telemetry/create-logger.js';
import { createTelemetry } from './telemetry/create-telemetry.js';
import type { Logger } from './telemetry/logger.js';
import type { SharedMetrics } from './telemetry/metrics-snapshot.js';
import { tracingSettings } from './telemetry/otel-tracing.js';
import { WebhookDispatcher } from './webhooks/webhook-dispatcher.js';

/** What {@link startRunbridge} needs: a validated configuration (see `loadConfig`), and optional replacements for tests and embedding. */
export interface StartOptions {
  /** The validated configuration; `loadConfig()` reads it from the environment variables. */
  config: Config;
  /**
   * Model providers of your own, added to the configured ones (`offline` always, and those whose keys are
   * set; see {@link configuredProviders}): a provider named like a configured one replaces it (tests point
   * `openai` at a fake server this way), any other name is added beside them. docs/models.md shows one.
   */
  providers?: ModelProvider[];
  /** Environments for the built-in ORS server instead of the built-in ones (tests shorten slow tools). */
  environments?: AnyEnvironment[];
  /** The folder of the built chat page to serve at `/`; default `dist/ui/` (tests serve a fresh build of the sources). */
  uiDir?: string;
  /**
   * Where the log lines go (docs/operations.md#logs); default pino on stderr as `RUNBRIDGE_LOG_LEVEL`
   * and `RUNBRIDGE_LOG_FORMAT` say (whole errors only at `debug`).
   */
  logger?: Logger;
  /**
   * In a worker of `runbridge serve --workers N`: where `GET /metrics` gets the one page of every
   * worker's metrics, which the cluster's primary gathers (docs/operations.md#metrics).
   */
  sharedMetrics?: SharedMetrics;
}

/** A running bridge. */
export interface Runbridge {
  /** Base URL of the HTTP API, e.g. `http://127.0.0.1:8080`. */
  url: string;
  /** Base URL of the ORS server the bridge drives (the built-in one unless `ORS_URL` is set). */
  orsUrl: string;
  /** The built-in ORS server, when it is the one in use. */
  orsServer: OrsServer | undefined;
  /** The environment of requests that name none, as chosen at start-up; undefined while the ORS server did not answer. */
  defaultEnv: string | undefined;
  /**
   * Graceful shutdown (docs/protocol.md §6): new runs get 503, running runs finish within the grace period
   * and the rest are cancelled, every subscriber receives its terminal event, every ORS session is
   * deleted, then the servers close. Idempotent.
   */
  shutdown(): Promise<void>;
}

const LOOPBACK = new Set(['127.0.0.1', '::1', 'localhost']);
/** How long subscribers get to read their terminal event after the last run ended. */
const FLUSH_MS = 2000;
/** Least time between two sweeps of the rollout batches. */
const ROLLOUT_SWEEP_MS = 5000;

/** Wires ORS, models, runs and HTTP together and starts listening. The one place adapters meet the core. */
export async function startRunbridge(options: StartOptions): Promise<Runbridge> {
  return (await startBridge(options)).bridge;
}

/**
 * {@link startRunbridge}, also handing back the runs' registry and the rollout service (not part of the public API: the tests and
 * the benchmarks look inside a running bridge through it).
 */
export async function startBridge(
  options: StartOptions,
): Promise<{ bridge: Runbridge; registry: RunRegistry; rollouts: RolloutService }> {
  const { config } = options;
  // The bridge's own log, unless the caller gave one: it writes what waits for stderr as the bridge stops.
  const ownLog = options.logger
    ? undefined
    : createLogger({ level: config.logLevel, format: config.logFormat, bufferBytes: config.logBufferBytes });
  const log = options.logger ?? (ownLog as OwnLogger);
  const refused = [...keylessExposures(config), ...metricsTokenProblems(config.metrics.token, config.apiKeys)];
  if (refused.length > 0) throw new ConfigError(refused);

  // Before anything opens a socket: a cap above the open-file limit stops start-up here.
  const limits = connectionLimits(config, openFileLimit());

  // Later providers replace earlier ones of the same name: yours win over the configured ones.
  const providers = [...configuredProviders(config), ...(options.providers ?? [])];
  const models = new ModelRegistry(providers, config.defaultModel, PROVIDER_SETUP);
  // Never to come back out of a run, whatever a model or an environment says (docs/security.md).
  const bridgeSecrets = bridgeSecretsOf(config, providers);
  models.normalise(undefined); // fail at start-up, not at the first request, on a bad RUNBRIDGE_MODEL
  const modelCatalog = new ModelCatalog(models, {
    maxModels: config.modelListMaxModels,
    maxBytes: config.modelListMaxBytes,
  });

  const { ors, orsUrl, orsServer } = await connectOrs(config, options.environments);
  const catalog = new EnvCatalog(ors, { defaultEnv: config.defaultEnv });
  let defaultEnv: string | undefined;
  try {
    defaultEnv = await checkDefaultEnv(catalog, orsUrl, config.defaultEnv, log);
  } catch (error) {
    await orsServer?.close();
    throw error;
  }
  let opened: OpenedStore;
  try {
    opened = await openRunStore(config, log);
  } catch (error) {
    await orsServer?.close();
    throw error;
  }
  const { store, streams, secret, outbox, instance, rollouts: batches, a2a } = opened;
  const telemetry = createTelemetry({
    logger: log,
    metrics: config.metrics.enabled,
    tracing: tracingSettings(config.tracing),
    ...(instance === undefined ? {} : { instance }),
    // Labels the operator chose, never a tenant (docs/security.md): what GET /v1/models lists, the default, the setting's.
    labelledModels: [...models.list().map((model) => model.id), models.normalise(undefined), ...config.metrics.models],
    ...(options.sharedMetrics === undefined ? {} : { shared: options.sharedMetrics }),
  });
  const webhooks = new WebhookDispatcher({
    outbox,
    settings: config.webhooks,
    log,
    metrics: telemetry.metrics,
    // A deleted A2A push config is sent nothing more, whichever instance deleted it.
    pushWanted: async ({ taskId, configId }) => (await a2a.pushConfigs(taskId)).some(({ id }) => id === configId),
  });
  // Push notifications are signed as webhooks are: without the webhook secret, the card offers none, and
  // no run's events are watched for them (a listener and a read of the configs per burst, for nothing).
  const pushNotifier =
    config.webhooks.secret === undefined
      ? undefined
      : new PushNotifier(a2a, webhooks, (error) =>
          log.error({ err: error }, 'A2A push: could not queue the deliveries of an event'),
        );
  const registry = new RunRegistry({
    ors,
    models,
    store,
    streams,
    catalog,
    webhooks: pushNotifier === undefined ? webhooks : withPushNotifications(webhooks, pushNotifier),
    telemetry,
    ...(config.tracing.traceUrl === undefined ? {} : { traceUrl: config.tracing.traceUrl }),
    ...(secret ? { secret } : {}),
    bridgeSecrets,
    sweepMs: config.sweepMs,
    limits: {
      maxConcurrentRuns: config.maxConcurrentRuns,
      maxEventsPerRun: config.maxEventsPerRun,
      runTimeoutMs: config.runTimeoutMs,
      toolOutputEventChars: config.toolOutputEventChars,
      toolProgressMs: config.toolProgressMs,
      caps: episodeCaps(config),
    },
  });
  telemetry.metrics.countQueued(async () => (await registry.stats()).queued);
  const a2aPush =
    pushNotifier === undefined
      ? undefined
      : createA2aPush({
          registry,
          store: a2a,
          sender: webhooks,
          notifier: pushNotifier,
          maxConfigs: config.a2aMaxPushConfigs,
          // A task's configs outlive its run: as long as it may run, then be remembered.
          ttlMs: config.runTimeoutMs + config.retentionMs,
        });

  const rollouts = new RolloutService({
    registry,
    ors,
    catalog,
    models,
    store: batches,
    ...(secret ? { secret } : {}),
    maxPairs: Math.min(config.maxQueuedRuns, config.maxQueuedPerKey),
    retentionMs: config.retentionMs,
    // The sweep only mends what an instance's death cut short: it need not run as often as the runs' own.
    sweepMs: Math.max(config.sweepMs, ROLLOUT_SWEEP_MS),
    log,
    metrics: telemetry.metrics,
  });

  const shutdownController = new AbortController();
  // Every open event stream and waiting request listens for the shutdown: as many listeners as clients.
  setMaxListeners(0, shutdownController.signal);
  const app = createApp({
    registry,
    rollouts,
    models: modelCatalog,
    authenticator: new Authenticator(config.apiKeys),
    environments: catalog,
    ui: config.ui.enabled ? new UiAssets(options.uiDir) : undefined,
    streams: new StreamSlots(limits),
    ...(secret ? { streamTokenSecret: secret } : {}),
    config: { ...config, store: config.redisUrl === undefined ? 'memory' : 'redis', instance },
    shutdownSignal: shutdownController.signal,
    now: Date.now,
    telemetry,
    metricsAccess: new MetricsAccess(config.metrics.token, config.apiKeys),
    bridgeSecrets,
    ...(a2aPush === undefined ? {} : { a2aPush }),
  });
  // Node answers a request without a Host header with a bare 400 before the app sees it; the bridge
  // never routes by Host, so such a request is served (or refused) like any other, with our error body.
  const server = createServer(
    {
      requireHostHeader: false,
      // Node judges the two timeouts below only at this interval (30 s by default): often enough that a
      // connection sending its headers slowly is closed about when its time is up.
      connectionsCheckingInterval: Math.max(100, Math.min(1000, config.headersTimeoutMs / 4)),
    },
    app.callback(),
  );
  server.on('clientError', answerClientError);
  // These bound how long a client may take to *send* its request (a trickled body answers 408);
  // neither applies to a response, so SSE streams idle between keep-alives are never cut by them.
  server.requestTimeout = config.requestTimeoutMs;
  server.headersTimeout = config.headersTimeoutMs;
  server.keepAliveTimeout = 5_000;
  limitConnectionsPerAddress(server, config.maxConnectionsPerAddress);
  // Past this Node closes new connections at once, before they can take the last file descriptors
  // (which the bridge's own ORS and model connections need too).
  if (Number.isFinite(limits.maxConnections)) server.maxConnections = limits.maxConnections;
  try {
    await listen(server, config.port, config.host);
  } catch (error) {
    // The port is taken or refused: nothing was served yet. Stop what already runs — the built-in
    // ORS server's socket and the registry's sweep would keep the process alive after the error.
    modelCatalog.close();
    await rollouts.stop();
    await registry.shutdown(0);
    await orsServer?.close();
    await telemetry.shutdown();
    if ((error as NodeJS.ErrnoException).code === 'EADDRINUSE') {
      throw new ConfigError([
        `PORT=${config.port}: ${config.host}:${config.port} is already in use (EADDRINUSE); ` +
          'set PORT to another port (runbridge serve --port N), or stop what listens there.',
      ]);
    }
    throw error;
  }
  const address = server.address() as AddressInfo;
  const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  // An OpenAI-compatible server's model list is asked for now, so a page's first GET /v1/models finds it.
  modelCatalog.warm();

  let stopping: Promise<void> | undefined;
  const shutdown = (): Promise<void> =>
    (stopping ??= (async () => {
      const running = registry.localStats().running;
      log.info({ running, grace_ms: config.shutdownGraceMs }, 'shutting down: no new runs; running ones may finish');
      modelCatalog.close();
      await rollouts.stop();
      await registry.shutdown(config.shutdownGraceMs);
      await waitForSubscribers(registry, FLUSH_MS);
      shutdownController.abort();
      await closeServer(server);
      await orsServer?.close();
      log.info('shut down');
      await telemetry.shutdown();
      await ownLog?.drain(LOG_DRAIN_MS);
    })());

  return {
    bridge: { url: `http://${host}:${address.port}`, orsUrl, orsServer, defaultEnv, shutdown },
    registry,
    rollouts,
  };
}

/**
 * What would open the API to others without a key (docs/security.md): a `HOST` beyond loopback, or
 * CORS for any origin — a page on any site runs in a browser on the user's machine, where loopback
 * does not keep it out, and `*` would let it read the runs and start new ones. None with keys.
 */
function keylessExposures(config: Config): string[] {
  if (config.apiKeys.length > 0) return [];
  const problems: string[] = [];
  if (!LOOPBACK.has(config.host)) {
    problems.push(
      `HOST=${config.host} would expose the API without authentication; set RUNBRIDGE_API_KEYS, or listen on 127.0.0.1.`,
    );
  }
  if (config.corsOrigins.includes('*')) {
    problems.push(
      'RUNBRIDGE_CORS_ORIGINS=* without RUNBRIDGE_API_KEYS would let a page on any origin read and start runs ' +
        "from the browser of whoever opens it (loopback does not keep a page out: it runs on the user's machine); " +
        'list the origins you trust, or set RUNBRIDGE_API_KEYS.',
    );
  }
  return problems;
}

/**
 * Stops start-up when the ORS server answers and does not list `defaultEnv` (any case): every request
 * that names no environment would be a 404. A server that does not answer is not judged — it may
 * come up later — and the log says the check was skipped.
 */
async function checkDefaultEnv(
  catalog: EnvCatalog,
  orsUrl: string,
  configured: string | undefined,
  log: Logger,
): Promise<string | undefined> {
  try {
    if (configured === undefined) return await catalog.defaultEnv();
    await catalog.assertKnown(configured);
    return configured;
  } catch (error) {
    if (error instanceof NotFoundError) {
      const named = configured === undefined ? 'The default environment' : `RUNBRIDGE_DEFAULT_ENV=${configured}`;
      throw new ConfigError([`${named}: the ORS server at ${orsUrl} says: ${error.message}`]);
    }
    log.warn(
      { err: error },
      configured === undefined
        ? 'Starting without the ORS server (the default environment is chosen once it answers)'
        : `Starting without the ORS server (RUNBRIDGE_DEFAULT_ENV=${configured} was not checked)`,
    );
    return configured;
  }
}

function listen(server: Server, port: number, host: string): Promise<void> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
}

async function waitForSubscribers(registry: RunRegistry, limitMs: number): Promise<void> {
  const deadline = Date.now() + limitMs;
  while (registry.localStats().subscribers > 0 && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

function closeServer(server: Server): Promise<void> {
  return new Promise((resolve) => {
    server.close(() => resolve());
    server.closeIdleConnections();
    // Streams were given their terminal event and a flush window; whatever is still open is stuck.
    server.closeAllConnections();
  });
}
