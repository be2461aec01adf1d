import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createOrsServer, type OrsServer } from '../../src/ors/server/create-ors-server.js';
import { OrsFaultProxy } from '../support/ors-fault-proxy.js';
import { startTestBridge, type TestBridge } from '../support/start-test-bridge.js';
import { createTestEnvironment } from '../support/test-environment.js';

/**
 * A remote ORS server whose environment cannot set up a session answers 500 with its reason on every
 * request of that session. The run reports that reason under its own code and does not ask the
 * server again and again: "check that it is running and reachable" would send the user the wrong way.
 */
describe('a remote environment whose setup fails', () => {
  let ors: OrsServer;
  let proxy: OrsFaultProxy;
  let bridge: TestBridge;

  beforeAll(async () => {
    ors = createOrsServer({ environments: [createTestEnvironment().environment], logError: () => undefined });
    proxy = await OrsFaultProxy.start(await ors.listen());
    bridge = await startTestBridge({ ORS_URL: proxy.url, RUNBRIDGE_DEFAULT_ENV: 'testenv' });
  });
  afterAll(async () => {
    await bridge.shutdown();
    await proxy.close();
    await ors.close();
  });

  it("fails the run with ors_server_error and the server's own message after two tries, and deletes the session", async () => {
    const runId = await bridge.startRun({ task: { spec: { question: 'q', fail_setup: true } } });
    const failed = (await bridge.readEvents(runId)).at(-1);
    expect(failed).toMatchObject({ event: 'run.failed', code: 'ors_server_error' });
    const message = failed?.event === 'run.failed' ? failed.error : '';
    expect(message).toMatch(/the ORS server failed: Environment setup failed for session ".+": no sandbox available/);
    expect(message).not.toContain('running and reachable');
    // Prompt and tools are asked for side by side; each is asked twice, not five times.
    expect(proxy.requestsTo('/testenv/prompt').length).toBeLessThanOrEqual(2);
    expect(proxy.requestsTo('/testenv/task_tools').length).toBeLessThanOrEqual(2);
    expect(ors.activeSessionIds()).toEqual([]);
  });
});
