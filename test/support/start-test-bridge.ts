import { createOfflineProvider } from '../../adapters/models/offline/offline-provider.js';
import { loadConfig } from '../../src/config/index.js';
import { type Runbridge, type StartOptions, startBridge } from '../../src/main.js';
import type { RunEvent } from '../../src/protocol/run-events.js';
import type { RolloutService } from '../../src/rollouts/rollout-service.js';
import type { RunRegistry } from '../../src/runs/run-registry.js';
import { silentLogger } from '../../src/telemetry/logger.js';
import { runEventsOf } from './run-events-of.js';
import { useStarted } from './use-started.js';

export interface TestBridge extends Runbridge {
  /** The runs the bridge holds, to look inside it. */
  registry: RunRegistry;
  /** The rollout batches the bridge serves, to sweep them when a test says. */
  rollouts: RolloutService;
  /** fetch against the bridge, with the bearer key when one is configured. */
  fetch(path: string, init?: RequestInit): Promise<Response>;
  /** POST /v1/runs with `body`, and `headers` beside the JSON content type; returns the run id (throws on a non-2xx answer). */
  startRun(body?: Record<string, unknown>, options?: { headers?: Record<string, string> }): Promise<string>;
  /** Reads the run's SSE stream to its end and returns the typed events. */
  readEvents(runId: string, options?: { after?: number; headers?: Record<string, string> }): Promise<RunEvent[]>;
}

/**
 * Starts a whole bridge on loopback — built-in ORS server, offline model without token delays, plus
 * any `providers` given — with `env` overriding configuration variables. Stop it with `shutdown()`.
 */
export async function startTestBridge(
  env: Record<string, string> = {},
  options: Omit<StartOptions, 'config'> & { apiKey?: string } = {},
): Promise<TestBridge> {
  const config = loadConfig({ PORT: '0', HOST: '127.0.0.1', ...env });
  const { bridge, registry, rollouts } = await startBridge({
    logger: silentLogger,
    ...options,
    // In place of the configured offline model, one without token delays; tests add scripted or vendor-backed ones.
    providers: [createOfflineProvider({ tokenDelayMs: 0 }), ...(options.providers ?? [])],
    config,
  });
  const auth: Record<string, string> = options.apiKey ? { Authorization: `Bearer ${options.apiKey}` } : {};
  const request = (path: string, init: RequestInit = {}) =>
    fetch(`${bridge.url}${path}`, {
      ...init,
      headers: { ...auth, ...(init.headers as Record<string, string> | undefined) },
    });
  return {
    ...bridge,
    registry,
    rollouts,
    fetch: request,
    async startRun(body = {}, { headers = {} } = {}) {
      const response = await request('/v1/runs', {
        method: 'POST',
        headers: { ...headers, 'Content-Type': 'application/json' },
        body: JSON.stringify(body),
      });
      const answer = (await response.json()) as { run_id?: string };
      if (response.status !== 202 || !answer.run_id)
        throw new Error(`POST /v1/runs answered ${response.status}: ${JSON.stringify(answer)}`);
      return answer.run_id;
    },
    async readEvents(runId, { after, headers = {} } = {}) {
      const query = after === undefined ? '' : `?after=${after}`;
      const response = await request(`/v1/runs/${runId}/events${query}`, { headers });
      if (response.status === 204) return [];
      if (response.status !== 200 || !response.body)
        throw new Error(`events answered ${response.status}: ${await response.text()}`);
      return runEventsOf(response.body);
    },
  };
}

/**
 * Starts a bridge as {@link startTestBridge} does before the tests of the enclosing `describe` (or
 * file) and shuts it down after them; what it returns stands for that bridge ({@link useStarted}).
 */
export function useTestBridge(...args: Parameters<typeof startTestBridge>): TestBridge {
  return useStarted(
    'the bridge',
    () => startTestBridge(...args),
    (bridge) => bridge.shutdown(),
  );
}
