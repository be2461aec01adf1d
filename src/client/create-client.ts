import { type EnvironmentsApi, environmentsApi, type ModelsApi, modelsApi } from './catalog-api.js';
import { clientTransport } from './client-transport.js';
import { type ReconnectOptions, reconnectPolicy } from './run-event-stream.js';
import { type RunsApi, runsApi } from './runs-api.js';

/** Options of {@link createClient}. */
export interface ClientOptions {
  /** The bridge's base URL, e.g. `http://127.0.0.1:8080`; a path prefix is kept and a trailing slash ignored. */
  baseUrl: string;
  /** Sent as `Authorization: Bearer <apiKey>`; leave it out for a bridge without `RUNBRIDGE_API_KEYS`. */
  apiKey?: string;
  /** The fetch to use (a test double, a proxy-aware one); default the global `fetch`. */
  fetch?: typeof fetch;
  /** How broken event streams are resumed (see {@link ReconnectOptions} for the defaults). */
  reconnect?: ReconnectOptions;
}

/** A client of one runbridge server. */
export interface RunbridgeClient {
  /** The bridge's base URL as used, without a trailing slash. */
  readonly baseUrl: string;
  /** Start, inspect, list, cancel and forget runs, and follow their events. */
  readonly runs: RunsApi;
  /** The models a run may name. */
  readonly models: ModelsApi;
  /** The environments and tasks a run may play. */
  readonly environments: EnvironmentsApi;
}

/**
 * A typed client of the runbridge HTTP API, built on `fetch` and eventsource-parser alone, so it runs
 * in Node 20+ and in browsers. Throws a `TypeError` at once for a base URL that is not http(s), an
 * empty API key or a reconnect setting that is not a whole number ≥ 0; nothing is sent until a method is called.
 */
export function createClient(options: ClientOptions): RunbridgeClient {
  const transport = clientTransport(options);
  const { baseUrl } = transport;
  return {
    baseUrl,
    runs: runsApi(transport, reconnectPolicy(options.reconnect)),
    models: modelsApi(transport),
    environments: environmentsApi(transport),
  };
}
