import type { A2aPush } from '../a2a/a2a-deps.js';
import type { TraceparentTrust } from '../config/traceparent-trust.js';
import type { ModelListing } from '../models/model-catalog.js';
import type { RolloutService } from '../rollouts/rollout-service.js';
import type { EnvironmentEntry, OrsHealth } from '../runs/env-catalog.js';
import type { RunRegistry } from '../runs/run-registry.js';
import type { Telemetry } from '../telemetry/telemetry.js';
import type { Authenticator } from './authenticate.js';
import type { MetricsAccess } from './metrics-access.js';
import type { StreamSlots } from './stream-slots.js';
import type { UiAssets } from './ui-assets.js';

/** Everything the HTTP layer needs, wired by `main.ts`. */
export interface AppDeps {
  registry: RunRegistry;
  /** The rollout batches of `/v1/rollouts`, played as runs of `registry`. */
  rollouts: RolloutService;
  /** What `GET /v1/models` lists (a `ModelCatalog`). */
  models: { list(): Promise<ModelListing> };
  authenticator: Authenticator;
  /** What `GET /v1/environments` lists (the `EnvCatalog` the runs are checked against), and whether the ORS server answers. */
  environments: {
    list(): Promise<EnvironmentEntry[]>;
    health(): Promise<OrsHealth>;
    defaultEnv(): Promise<string>;
    /** The tools of an environment, for the A2A card's skills. */
    tools(env: string): Promise<Array<{ name: string; description: string }>>;
  };
  /** The built chat page served at `GET /`, or undefined with `RUNBRIDGE_UI=0`. */
  ui: UiAssets | undefined;
  /** The caps on open event streams, in total and per key; every SSE answer holds a slot. */
  streams: StreamSlots;
  config: {
    /** Where runs are kept (`/health`). */
    store: 'memory' | 'redis';
    /** This instance's id in the shared store (`/health`); undefined in memory. */
    instance: string | undefined;
    maxBodyBytes: number;
    /** The base URL callers reach the bridge at (`RUNBRIDGE_PUBLIC_URL`): the A2A card's URLs; unset, the request's origin. */
    publicUrl?: string | undefined;
    keepaliveMs: number;
    subscriberBufferBytes: number;
    streamTokenTtlMs: number;
    /** Origins allowed by CORS; empty turns CORS off. */
    corsOrigins: readonly string[];
    /** Whose `traceparent` a request continues (`RUNBRIDGE_TRACEPARENT_TRUST`). */
    tracing: { traceparentTrust: TraceparentTrust };
  };
  /** The secret stream tokens are sealed with, shared by every instance; undefined: one of this process. */
  streamTokenSecret?: Buffer;
  /** Aborted at the very end of shutdown to cut streams whose clients stopped reading. */
  shutdownSignal: AbortSignal;
  now: () => number;
  /** Logs (the access lines, our own 500s), metrics (`GET /metrics`, open streams) and request spans. */
  telemetry: Telemetry;
  /** Who may read `GET /metrics`: the scraper's `RUNBRIDGE_METRICS_TOKEN`, never an API key. */
  metricsAccess: MetricsAccess;
  /** A2A push notifications (`src/a2a/push/`); undefined while none are served (the card says so). */
  a2aPush?: A2aPush;
  /** The bridge's own secrets, cut out of every error body (docs/security.md). */
  bridgeSecrets?: readonly string[];
}

/** `ctx.state` of every authenticated request. */
export interface AppState {
  /** Who is asking; runs are scoped to it. */
  owner: string;
}
