import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { send } from './ors-test-client.js';
import { startTestServer, type TestServer } from './test-server.js';

let t: TestServer;
beforeAll(async () => {
  t = await startTestServer();
});
afterAll(async () => {
  await t.server.close();
});

const post = (path: string, body: unknown) => send(t.base, path, { method: 'POST', body });

describe('the discovery endpoints', () => {
  it('answers /health with status ok', async () => {
    const res = await send(t.base, '/health');
    expect(res.status).toBe(200);
    expect(res.json()).toEqual({ status: 'ok' });
  });

  it('lists the served environments by name', async () => {
    expect((await send(t.base, '/list_environments')).json()).toEqual(['testenv']);
  });

  it('lists the shared tools with their input schemas, null for a tool without input, and a title property intact', async () => {
    const res = await send(t.base, '/testenv/tools');
    expect(res.status).toBe(200);
    const { tools } = res.json() as {
      tools: { name: string; description: string; input_schema: Record<string, unknown> | null }[];
    };
    expect(tools.map((tool) => tool.name)).toEqual(['echo', 'wait', 'refuse', 'crash', 'garbage', 'noop', 'describe']);
    expect(tools.find((tool) => tool.name === 'echo')).toEqual({
      name: 'echo',
      description: 'Answers with the given text.',
      input_schema: {
        type: 'object',
        properties: { text: { type: 'string' }, reward: { type: 'number' }, finished: { type: 'boolean' } },
        required: ['text'],
        additionalProperties: false,
      },
    });
    expect(tools.find((tool) => tool.name === 'noop')?.input_schema).toBeNull();
    expect(tools.find((tool) => tool.name === 'describe')?.input_schema?.properties).toMatchObject({
      title: { type: 'string', description: 'the title of the thing' },
    });
    expect(tools.some((tool) => tool.name === 'hint')).toBe(false);
  });

  it('finds an environment whatever the case of its name in the path', async () => {
    expect((await send(t.base, '/TestEnv/splits')).status).toBe(200);
  });

  it('describes what a task_spec holds as the JSON Schema of the input /create accepts (our extension)', async () => {
    const res = await send(t.base, '/TestEnv/task_schema');
    expect(res.status).toBe(200);
    expect(res.json()).toEqual({
      task_schema: {
        $schema: 'https://json-schema.org/draft/2020-12/schema',
        type: 'object',
        properties: { question: { type: 'string' }, fail_setup: { type: 'boolean' }, hold_setup: { type: 'string' } },
        required: ['question'],
        additionalProperties: false,
      },
    });
    expect((await send(t.base, '/nope/task_schema')).status).toBe(404);
  });

  it('lists the splits with name and type', async () => {
    expect((await send(t.base, '/testenv/splits')).json()).toEqual([
      { name: 'train', type: 'train' },
      { name: 'test', type: 'test' },
    ]);
  });

  it('lists the tasks of a split with the environment name', async () => {
    const res = await post('/testenv/tasks', { split: 'test' });
    expect(res.status).toBe(200);
    expect(res.json()).toEqual({ tasks: [{ question: 'What is 10*10?' }], env_name: 'testenv' });
  });

  it('counts the tasks of a split', async () => {
    expect((await post('/testenv/num_tasks', { split: 'train' })).json()).toEqual({ num_tasks: 3 });
  });

  it('gives one task by index, counting negative indices from the end', async () => {
    expect((await post('/testenv/task', { split: 'train', index: 1 })).json()).toEqual({
      task: { question: 'What is 2+2?' },
    });
    expect((await post('/testenv/task', { split: 'train', index: -1 })).json()).toEqual({
      task: { question: 'What is 3+3?' },
    });
  });

  it('gives a range of tasks with Python slice semantics', async () => {
    const questions = async (body: Record<string, unknown>) =>
      (
        (await post('/testenv/task_range', { split: 'train', ...body })).json() as { tasks: { question: string }[] }
      ).tasks.map((task) => task.question);
    expect(await questions({})).toEqual(['What is 1+1?', 'What is 2+2?', 'What is 3+3?']);
    expect(await questions({ start: 1 })).toEqual(['What is 2+2?', 'What is 3+3?']);
    expect(await questions({ start: -2, stop: -1 })).toEqual(['What is 2+2?']);
    expect(await questions({ start: 2, stop: 100 })).toEqual(['What is 3+3?']);
    expect(await questions({ start: 2, stop: 1 })).toEqual([]);
  });
});

describe('the discovery endpoints, when asked wrongly', () => {
  it('answer 404 with a detail for an unknown environment', async () => {
    for (const res of [
      await send(t.base, '/nope/tools'),
      await send(t.base, '/nope/splits'),
      await post('/nope/num_tasks', { split: 'train' }),
    ]) {
      expect(res.status).toBe(404);
      expect((res.json() as { detail: string }).detail).toContain('unknown environment "nope"');
    }
  });

  it('answer 400 for a split the environment does not have', async () => {
    for (const path of ['/testenv/tasks', '/testenv/num_tasks', '/testenv/task_range']) {
      const res = await post(path, { split: 'validation' });
      expect(res.status).toBe(400);
      expect((res.json() as { detail: string }).detail).toMatch(/^Invalid split "validation"/);
    }
  });

  it('answer 400 for an index out of range in either direction', async () => {
    for (const index of [3, -4]) {
      const res = await post('/testenv/task', { split: 'train', index });
      expect(res.status).toBe(400);
      expect((res.json() as { detail: string }).detail).toMatch(/^Invalid index/);
    }
  });

  it('answer 422 with a FastAPI-style list for an extra body key', async () => {
    const res = await post('/testenv/num_tasks', { split: 'train', limit: 3 });
    expect(res.status).toBe(422);
    expect(res.json()).toEqual({
      detail: [{ type: 'extra_forbidden', loc: ['body', 'limit'], msg: 'Extra inputs are not permitted', input: 3 }],
    });
  });

  it('answer 422 for a missing field, a wrong type, a missing body and a body that is not JSON', async () => {
    const missing = await post('/testenv/task', { split: 'train' });
    expect(missing.status).toBe(422);
    expect(missing.json()).toEqual({
      detail: [{ type: 'missing', loc: ['body', 'index'], msg: 'Field required', input: { split: 'train' } }],
    });

    const wrongType = await post('/testenv/task', { split: 'train', index: 'one' });
    expect(wrongType.status).toBe(422);
    expect((wrongType.json() as { detail: { loc: unknown[]; input: unknown }[] }).detail[0]).toMatchObject({
      loc: ['body', 'index'],
      input: 'one',
    });

    const noBody = await send(t.base, '/testenv/tasks', { method: 'POST' });
    expect(noBody.status).toBe(422);
    expect(noBody.json()).toEqual({ detail: [{ type: 'missing', loc: ['body'], msg: 'Field required', input: null }] });

    const notJson = await post('/testenv/tasks', '{"split": ');
    expect(notJson.status).toBe(422);
    expect((notJson.json() as { detail: { type: string }[] }).detail[0]?.type).toBe('json_invalid');
  });

  it('answer 422 before 404 when both the body and the environment are wrong, as the reference does', async () => {
    expect((await post('/nope/tasks', { wrong: true })).status).toBe(422);
  });

  it('answer JSON 404 and 405 for a path or method no route serves', async () => {
    const unknown = await send(t.base, '/no/such/path');
    expect(unknown.status).toBe(404);
    expect(unknown.json()).toEqual({ detail: 'Not Found' });
    const wrongMethod = await send(t.base, '/health', { method: 'POST' });
    expect(wrongMethod.status).toBe(405);
    expect(wrongMethod.json()).toEqual({ detail: 'Method Not Allowed' });
  });
});
