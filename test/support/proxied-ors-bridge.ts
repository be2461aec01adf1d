import { afterEach } from 'vitest';
import { OrsFaultProxy } from './ors-fault-proxy.js';
import { scriptedProvider } from './scripted-model.js';
import { arithEnvironment, type ScriptedEnvironment } from './scripted-ors-environment.js';
import { ScriptedOrsServer } from './scripted-ors-server.js';
import { startTestBridge, type TestBridge } from './start-test-bridge.js';

/** A scripted ORS server, a fault proxy in front of it, and a bridge that plays its runs through the proxy. */
export interface ProxiedOrsBridge {
  server: ScriptedOrsServer;
  proxy: OrsFaultProxy;
  bridge: TestBridge;
}

/**
 * For a test file of runs against an ORS server that misbehaves: returns a function that starts a
 * {@link ProxiedOrsBridge} — `arith` by default, whose model (`scripted:submit`) makes one call,
 * `submit({"answer": 5})`, with `env` added to the bridge's configuration — and stops each one after
 * its test.
 */
export function proxiedOrsBridges(): (options?: {
  environment?: ScriptedEnvironment;
  env?: Record<string, string>;
}) => Promise<ProxiedOrsBridge> {
  const started: ProxiedOrsBridge[] = [];
  afterEach(async () => {
    for (const rig of started.splice(0)) {
      await rig.bridge.shutdown();
      await rig.proxy.close();
      await rig.server.close();
    }
  });
  return async ({ environment = arithEnvironment(), env = {} } = {}) => {
    const server = await ScriptedOrsServer.start({ environments: { arith: environment } });
    const proxy = await OrsFaultProxy.start(server.url);
    const bridge = await startTestBridge(
      { ORS_URL: proxy.url, RUNBRIDGE_DEFAULT_ENV: 'arith', RUNBRIDGE_MODEL: 'scripted:submit', ...env },
      { providers: [scriptedProvider({ submit: [{ toolCalls: [{ name: 'submit', arguments: '{"answer":5}' }] }] })] },
    );
    const rig = { server, proxy, bridge };
    started.push(rig);
    return rig;
  };
}
