import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ScriptedOrsServer } from '../support/scripted-ors-server.js';
import { startTestBridge, type TestBridge, useTestBridge } from '../support/start-test-bridge.js';

const json = { 'Content-Type': 'application/json' };

/** How `POST /v1/runs` judges `env` and `task` before it answers 202 (docs/api.md). */
describe('the task of a run request', () => {
  const bridge = useTestBridge();

  const post = (body: unknown) =>
    bridge.fetch('/v1/runs', { method: 'POST', headers: json, body: JSON.stringify(body) });

  it('matches the environment name without regard to case, as ORS servers do', async () => {
    const response = await post({ env: 'ARITH' });
    expect(response.status).toBe(202);
    const { run_id } = (await response.json()) as { run_id: string };
    expect((await bridge.readEvents(run_id)).at(-1)?.event).toBe('run.completed');
  });

  it('takes an index alone and plays it from the first split', async () => {
    const response = await post({ env: 'arith', task: { index: 3 } });
    expect(response.status).toBe(202);
    const { run_id } = (await response.json()) as { run_id: string };
    const [started] = await bridge.readEvents(run_id);
    expect(started).toMatchObject({ event: 'run.started', task: { split: 'train', index: 3 } });
  });

  it('takes a split alone and plays its first task', async () => {
    const response = await post({ env: 'arith', task: { split: 'test' } });
    expect(response.status).toBe(202);
    const { run_id } = (await response.json()) as { run_id: string };
    expect((await bridge.readEvents(run_id))[0]).toMatchObject({ task: { split: 'test', index: 0 } });
  });

  it('refuses a spec with split or index beside it, naming the rule', async () => {
    const response = await post({ env: 'arith', task: { spec: { question: 'q', answer: 1 }, index: 2 } });
    expect(response.status).toBe(400);
    expect(await response.json()).toMatchObject({
      error: { code: 'invalid_request', message: expect.stringContaining('either split and index, or spec') },
    });
  });

  it('checks a spec against the built-in environment task schema before answering 202, with words for specs', async () => {
    const before = bridge.registry.stats();
    const response = await post({ env: 'arith', task: { spec: { question: 5, extra: true } } });
    expect(response.status).toBe(400);
    const { error } = (await response.json()) as { error: { code: string; message: string } };
    expect(error.code).toBe('invalid_task');
    expect(error.message).toMatch(/^task\.spec does not fit environment "arith": /);
    expect(error.message).toContain('task.spec.question');
    expect(error.message).toContain('task.spec.answer');
    expect(error.message).toContain('/arith/task_schema');
    expect(error.message).not.toMatch(/split|index/);
    // Refused at the door: no run was created.
    expect(bridge.registry.stats()).toEqual(before);
  });

  it('plays a spec that fits', async () => {
    const response = await post({
      env: 'workspace',
      task: { spec: { seed: 7, key: 'cache_ttl', answer: '42', location: 'config' } },
    });
    expect(response.status).toBe(202);
    const { run_id } = (await response.json()) as { run_id: string };
    expect((await bridge.readEvents(run_id)).at(-1)).toMatchObject({ event: 'run.completed', reward: 1 });
  });
});

describe('a task spec on an ORS server without the task_schema extension', () => {
  let ors: ScriptedOrsServer;
  let bridge: TestBridge;

  beforeAll(async () => {
    ors = await ScriptedOrsServer.start();
    bridge = await startTestBridge({ ORS_URL: ors.url, RUNBRIDGE_DEFAULT_ENV: 'arith' });
  });
  afterAll(async () => {
    await bridge.shutdown();
    await ors.close();
  });

  it('is accepted for /create to judge, as there is no schema to check it against', async () => {
    const runId = await bridge.startRun({ task: { spec: { a: 2, b: 2 } } });
    expect((await bridge.readEvents(runId))[0]).toMatchObject({ event: 'run.started', task: { spec: { a: 2, b: 2 } } });
    expect(ors.requestsTo('/arith/task_schema')).toHaveLength(1);
  });
});
