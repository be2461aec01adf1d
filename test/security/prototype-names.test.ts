import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { arithTask, arithTasks } from '../../adapters/environments/arith/arith-tasks.js';
import { builtinEnvironments } from '../../adapters/environments/builtin-environments.js';
import { workspaceTask, workspaceTasks } from '../../adapters/environments/workspace/workspace-tasks.js';
import { createOfflineProvider } from '../../adapters/models/offline/offline-provider.js';
import { main } from '../../src/cli.js';
import { ModelRegistry } from '../../src/models/model-registry.js';
import { taskList } from '../../src/ors/environment.js';
import { createOrsServer, type OrsServer } from '../../src/ors/server/create-ors-server.js';
import { PROVIDER_SETUP } from '../../src/provider-options.js';
import { PROTOTYPE_NAMES, showsInheritedMember } from '../support/prototype-names.js';
import { startTestBridge, type TestBridge } from '../support/start-test-bridge.js';

/**
 * Every lookup keyed by what a caller names — a model's provider, a stream format, an environment, a
 * split, a tool, a command — finds only what was put there: `constructor`, `toString` and the other
 * names every object inherits are unknown names like any other, never `Object`'s own members
 * (`model: "constructor:x"` answered "not configured: function Object() { [native code] }").
 */
describe.each(PROTOTYPE_NAMES)('the name "%s"', (name) => {
  let bridge: TestBridge;
  let ors: OrsServer;
  let orsUrl: string;
  beforeAll(async () => {
    bridge = await startTestBridge();
    ors = createOrsServer({ environments: builtinEnvironments });
    orsUrl = await ors.listen(0, '127.0.0.1');
  });
  afterAll(async () => {
    await bridge.shutdown();
    await ors.close();
  });

  /** Sends `body` as JSON and returns the answer's status and text, which must not show an inherited member. */
  async function ask(url: string, body?: unknown): Promise<{ status: number; text: string }> {
    const response = await fetch(url, {
      method: body === undefined ? 'GET' : 'POST',
      ...(body === undefined ? {} : { headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body) }),
    });
    const text = await response.text();
    expect(showsInheritedMember(text), text).toBe(false);
    return { status: response.status, text };
  }

  it('is no model provider: a 400 that lists the providers there are', async () => {
    for (const model of [name, `${name}:x`]) {
      for (const [path, body] of [
        ['/v1/runs', { model }],
        ['/v1/chat/completions', { model, messages: [{ role: 'user', content: 'hi' }] }],
      ] as const) {
        const { status, text } = await ask(`${bridge.url}${path}`, body);
        expect(status, text).toBe(400);
      }
    }
    const models = new ModelRegistry([createOfflineProvider()], 'offline', PROVIDER_SETUP);
    for (const model of [name, `${name}:x`]) {
      expect(() => models.normalise(model)).toThrow(/Providers here: offline\./);
      expect(() => models.normalise(model)).not.toThrow(/not configured|native code/);
    }
  });

  it('is no environment, split or stream format of the bridge', async () => {
    expect((await ask(`${bridge.url}/v1/runs`, { env: name })).status).toBeGreaterThanOrEqual(400);
    const split = await ask(`${bridge.url}/v1/runs`, { env: 'arith', task: { split: name } });
    expect(split.status).toBe(400);
    expect(JSON.parse(split.text)).toMatchObject({ error: { code: 'invalid_task' } });
    const runId = await bridge.startRun({ env: 'arith' });
    await bridge.readEvents(runId);
    const format = await ask(`${bridge.url}/v1/runs/${runId}/events?format=${encodeURIComponent(name)}`);
    expect(JSON.parse(format.text)).toMatchObject({ error: { code: 'unknown_format' } });
    expect((await ask(`${bridge.url}/v1/runs?status=${encodeURIComponent(name)}`)).status).toBe(400);
  });

  it('is no environment, split or tool of the ORS server', async () => {
    expect((await ask(`${orsUrl}/${name}/tools`)).status).toBe(404);
    expect((await ask(`${orsUrl}/arith/num_tasks`, { split: name })).status).toBe(400);
    expect((await ask(`${orsUrl}/arith/task`, { split: name, index: 0 })).status).toBe(400);
  });

  it('is no split of a task source, built in or made with taskList', () => {
    expect(arithTasks.count(name)).toBe(0);
    expect(workspaceTasks.count(name)).toBe(0);
    expect(taskList({ train: ['only'] }).count(name)).toBe(0);
    expect(() => arithTask(name, 0)).toThrow(/arith has no split/);
    expect(() => workspaceTask(name, 0)).toThrow(/workspace has no split/);
    expect(() => taskList({ train: ['only'] }).get(name, 0)).toThrow(RangeError);
  });

  it('is no command of the command line', async () => {
    const written: string[] = [];
    const stderr = vi.spyOn(process.stderr, 'write').mockImplementation((chunk) => {
      written.push(String(chunk));
      return true;
    });
    try {
      expect(await main([name])).toBe(2);
    } finally {
      stderr.mockRestore();
    }
    expect(written.join('')).toContain(`unknown command "${name}"`);
  });
});
