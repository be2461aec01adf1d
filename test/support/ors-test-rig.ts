import { OrsClient, type OrsClientOptions } from '../../src/ors/client/ors-client.js';
import type { OrsSession } from '../../src/ors/client/ors-session.js';
import { OrsFaultProxy } from './ors-fault-proxy.js';
import { ScriptedOrsServer, type ScriptedOrsServerOptions } from './scripted-ors-server.js';

/** Re-exported for the tests that hold their tools with it alongside a rig. */
export { deferred } from './test-environment.js';

/** A scripted ORS server, a fault proxy in front of it, and a client pointed at the proxy. */
export interface OrsTestRig {
  server: ScriptedOrsServer;
  proxy: OrsFaultProxy;
  client: OrsClient;
  /** `client.openSession` on `arith`, train index 0 by default; the session is closed by `close()`. */
  openSession(options?: Partial<Parameters<OrsClient['openSession']>[0]>): Promise<OrsSession>;
  /** Closes every session opened through the rig, then the proxy and the server. */
  close(): Promise<void>;
}

/**
 * Client settings for tests: quick retries (1-10 ms backoff) so fault scenarios finish fast, and
 * long ping and silence periods so nothing fires unless a test asks for it.
 */
export const TEST_CLIENT_OPTIONS: Omit<OrsClientOptions, 'baseUrl'> = {
  retries: 3,
  retryBaseDelayMs: 1,
  retryMaxDelayMs: 10,
  pingIntervalMs: 600_000,
  callSilenceTimeoutMs: 600_000,
  requestTimeoutMs: 600_000,
};

/** Starts a rig; `client` options override {@link TEST_CLIENT_OPTIONS}. */
export async function startOrsTestRig(
  options: { server?: ScriptedOrsServerOptions; client?: Partial<OrsClientOptions> } = {},
): Promise<OrsTestRig> {
  const server = await ScriptedOrsServer.start(options.server);
  const proxy = await OrsFaultProxy.start(server.url);
  const client = new OrsClient({ baseUrl: proxy.url, ...TEST_CLIENT_OPTIONS, ...options.client });
  const sessions: OrsSession[] = [];
  return {
    server,
    proxy,
    client,
    async openSession(overrides = {}) {
      const session = await client.openSession({ env: 'arith', task: { split: 'train', index: 0 }, ...overrides });
      sessions.push(session);
      return session;
    },
    async close() {
      await Promise.all(sessions.map((session) => session.close()));
      await proxy.close();
      await server.close();
    },
  };
}

/** The rejection of `promise` (fails the test if it resolves). */
export async function rejectionOf(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error('Expected the promise to reject, but it resolved.');
}
