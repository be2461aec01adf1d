import { expect } from 'vitest';
import { createOrsServer, type OrsServer, type OrsServerOptions } from '../../../src/ors/server/create-ors-server.js';
import { createTestEnvironment, type TestProbe } from '../../support/test-environment.js';
import { send } from './ors-test-client.js';

/** A listening ORS server serving the test environment, and what a test needs around it. */
export interface TestServer {
  base: string;
  server: OrsServer;
  probe: TestProbe;
  /** Everything the server logged, so a test can check a failure was reported (and stderr stays clean). */
  logged: { message: string; error: unknown }[];
  /** Creates a session (via `/create_session` + `/create`) and returns its id. */
  session(create?: Record<string, unknown>): Promise<string>;
}

/** Starts a server on 127.0.0.1, port 0, serving a fresh test environment (plus `extra` options). */
export async function startTestServer(extra: Omit<OrsServerOptions, 'environments'> = {}): Promise<TestServer> {
  const { environment, probe } = createTestEnvironment();
  const logged: TestServer['logged'] = [];
  const server = createOrsServer({
    environments: [environment],
    logError: (message, error) => logged.push({ message, error }),
    ...extra,
  });
  const base = await server.listen();
  return {
    base,
    server,
    probe,
    logged,
    async session(create = { env_name: 'testenv', split: 'train', index: 0 }) {
      const opened = await send(base, '/create_session', { method: 'POST' });
      const sid = /^event: task_id\ndata: (.+)\n/.exec(opened.text)?.[1];
      if (sid === undefined) throw new Error(`no session id in ${JSON.stringify(opened.text)}`);
      const created = await send(base, '/create', { method: 'POST', headers: { 'X-Session-ID': sid }, body: create });
      expect(created.status, created.text).toBe(200);
      return sid;
    },
  };
}
