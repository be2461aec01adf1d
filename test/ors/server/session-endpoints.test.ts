import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createOrsServer } from '../../../src/ors/server/create-ors-server.js';
import { createTestEnvironment, deferred } from '../../support/test-environment.js';
import { send } from './ors-test-client.js';
import { startTestServer, type TestServer } from './test-server.js';

let t: TestServer;
beforeEach(async () => {
  t = await startTestServer();
});
afterEach(async () => {
  await t.server.close();
});

const sid = (id: string) => ({ 'X-Session-ID': id });
const detailOf = (res: { json(): unknown }) => (res.json() as { detail: unknown }).detail;

describe('/create_session', () => {
  it('answers exactly the reference bytes: task_id with a uuid, then end with empty data', async () => {
    const res = await send(t.base, '/create_session', { method: 'POST' });
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('text/event-stream; charset=utf-8');
    expect(res.headers['cache-control']).toBe('no-cache');
    expect(res.headers['x-accel-buffering']).toBe('no');
    expect(res.text).toMatch(
      /^event: task_id\ndata: [0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}\n\nevent: end\ndata: \n\n$/,
    );
  });

  it('ignores a body, as the Python client sends one', async () => {
    const res = await send(t.base, '/create_session', { method: 'POST', body: {} });
    expect(res.status).toBe(200);
  });

  it('gives a new id every time and registers no session by itself', async () => {
    const first = await send(t.base, '/create_session', { method: 'POST' });
    const second = await send(t.base, '/create_session', { method: 'POST' });
    expect(first.text).not.toBe(second.text);
    expect(t.server.activeSessionIds()).toEqual([]);
  });
});

describe('/create', () => {
  it('creates a session from a task_spec and answers its id', async () => {
    const res = await send(t.base, '/create', {
      method: 'POST',
      headers: sid('s-1'),
      body: { env_name: 'testenv', task_spec: { question: 'Why?' }, secrets: {} },
    });
    expect(res.status).toBe(200);
    expect(res.json()).toEqual({ sid: 's-1' });
    expect(t.server.activeSessionIds()).toEqual(['s-1']);
    const prompt = await send(t.base, '/testenv/prompt', { headers: sid('s-1') });
    expect(prompt.json()).toEqual([{ text: 'Why?', detail: null, type: 'text' }]);
  });

  it('creates a session from split and index, on the first environment when env_name is left out', async () => {
    const res = await send(t.base, '/create', {
      method: 'POST',
      headers: sid('s-2'),
      body: { split: 'train', index: -1 },
    });
    expect(res.status).toBe(200);
    expect((await send(t.base, '/testenv/prompt', { headers: sid('s-2') })).json()).toEqual([
      { text: 'What is 3+3?', detail: null, type: 'text' },
    ]);
  });

  it('returns before setup has finished, and the session endpoints wait for it', async () => {
    const created = await send(t.base, '/create', {
      method: 'POST',
      headers: sid('slow'),
      body: { task_spec: { question: 'Slow?', hold_setup: 'slow' } },
    });
    expect(created.status).toBe(200);
    await t.probe.setupStarted('slow');
    const prompt = send(t.base, '/testenv/prompt', { headers: sid('slow') });
    t.probe.releaseSetup('slow');
    expect((await prompt).json()).toEqual([{ text: 'Slow?', detail: null, type: 'text' }]);
  });

  it('answers 400 without X-Session-ID, before looking at the body', async () => {
    const res = await send(t.base, '/create', { method: 'POST', body: { nonsense: true } });
    expect(res.status).toBe(400);
    expect(detailOf(res)).toMatch(/^X-Session-ID header is required/);
  });

  it('answers 400 to a second /create of the same session', async () => {
    const id = await t.session();
    const again = await send(t.base, '/create', {
      method: 'POST',
      headers: sid(id),
      body: { split: 'train', index: 0 },
    });
    expect(again.status).toBe(400);
    expect(detailOf(again)).toMatch(/^Session already exists/);
  });

  it('answers 400 for both or neither of task_spec and split+index, and for split without index', async () => {
    for (const body of [
      {},
      { task_spec: { question: 'q' }, split: 'train', index: 0 },
      { split: 'train' },
      { env_name: 'testenv' },
    ]) {
      const res = await send(t.base, '/create', { method: 'POST', headers: sid('s-3'), body });
      expect(res.status, JSON.stringify(body)).toBe(400);
    }
    expect(t.server.activeSessionIds()).toEqual([]);
  });

  it("answers 400 for a task_spec the environment's schema rejects, and for a bad split or index", async () => {
    const spec = await send(t.base, '/create', { method: 'POST', headers: sid('s-4'), body: { task_spec: { q: 1 } } });
    expect(spec.status).toBe(400);
    expect(detailOf(spec)).toContain('task_spec does not fit environment "testenv"');
    expect(
      (await send(t.base, '/create', { method: 'POST', headers: sid('s-4'), body: { split: 'dev', index: 0 } })).status,
    ).toBe(400);
    expect(
      (await send(t.base, '/create', { method: 'POST', headers: sid('s-4'), body: { split: 'train', index: 3 } }))
        .status,
    ).toBe(400);
    expect(t.server.activeSessionIds()).toEqual([]);
  });

  it('answers 404 for an unknown env_name and 422 for an extra key', async () => {
    expect(
      (
        await send(t.base, '/create', {
          method: 'POST',
          headers: sid('s-5'),
          body: { env_name: 'nope', split: 'train', index: 0 },
        })
      ).status,
    ).toBe(404);
    const extra = await send(t.base, '/create', {
      method: 'POST',
      headers: sid('s-5'),
      body: { split: 'train', index: 0, seed: 7 },
    });
    expect(extra.status).toBe(422);
    expect(detailOf(extra)).toEqual([
      { type: 'extra_forbidden', loc: ['body', 'seed'], msg: 'Extra inputs are not permitted', input: 7 },
    ]);
  });

  it('answers 422 for a "__proto__" key in task_spec or secrets, which a JavaScript reader would drop', async () => {
    for (const body of [
      '{"task_spec":{"question":"Why?","__proto__":{"x":1}}}',
      '{"split":"train","index":0,"secrets":{"nested":[{"__proto__":{}}]}}',
    ]) {
      const res = await send(t.base, '/create', { method: 'POST', headers: sid('s-6'), body });
      expect(res.status, body).toBe(422);
      expect(detailOf(res)).toEqual([
        expect.objectContaining({ type: 'proto_key', loc: expect.arrayContaining(['body', '__proto__']) }),
      ]);
    }
    expect(t.server.activeSessionIds()).toEqual([]);
  });

  it('may create a deleted session id again, as the reference allows', async () => {
    const id = await t.session();
    await send(t.base, '/delete', { method: 'POST', headers: sid(id) });
    const again = await send(t.base, '/create', {
      method: 'POST',
      headers: sid(id),
      body: { split: 'test', index: 0 },
    });
    expect(again.status).toBe(200);
    expect((await send(t.base, '/testenv/prompt', { headers: sid(id) })).status).toBe(200);
  });
});

describe('/ping', () => {
  it('answers ok for a live session, 404 for an unknown or deleted one, 400 without the header', async () => {
    const id = await t.session();
    const ok = await send(t.base, '/ping', { method: 'POST', headers: sid(id) });
    expect(ok.status).toBe(200);
    expect(ok.json()).toEqual({ status: 'ok' });
    expect((await send(t.base, '/ping', { method: 'POST', headers: sid('never') })).status).toBe(404);
    expect((await send(t.base, '/ping', { method: 'POST' })).status).toBe(400);
    await send(t.base, '/delete', { method: 'POST', headers: sid(id) });
    // The ORS pages answer 404 for a session that is not there, deleted ones included.
    expect((await send(t.base, '/ping', { method: 'POST', headers: sid(id) })).status).toBe(404);
  });

  it('does not wait for a setup that is still running', async () => {
    await send(t.base, '/create', {
      method: 'POST',
      headers: sid('held'),
      body: { task_spec: { question: 'q', hold_setup: 'held' } },
    });
    await t.probe.setupStarted('held');
    expect((await send(t.base, '/ping', { method: 'POST', headers: sid('held') })).status).toBe(200);
    t.probe.releaseSetup('held');
  });
});

describe('/delete and /delete_session', () => {
  it('tears the session down, answers its id, and is idempotent', async () => {
    const id = await t.session();
    const first = await send(t.base, '/delete', { method: 'POST', headers: sid(id) });
    expect(first.status).toBe(200);
    expect(first.json()).toEqual({ sid: id });
    expect(t.probe.teardowns).toEqual([id]);
    expect(t.server.activeSessionIds()).toEqual([]);
    const second = await send(t.base, '/delete', { method: 'POST', headers: sid(id) });
    expect(second.status).toBe(200);
    expect((await send(t.base, '/delete', { method: 'POST', headers: sid('never-created') })).status).toBe(200);
    expect(t.probe.teardowns).toEqual([id]);
  });

  it('answers /delete_session with the id, and 400 for either without the header', async () => {
    const res = await send(t.base, '/delete_session', { method: 'POST', headers: sid('abc') });
    expect(res.status).toBe(200);
    expect(res.json()).toEqual({ sid: 'abc' });
    expect((await send(t.base, '/delete_session', { method: 'POST' })).status).toBe(400);
    expect((await send(t.base, '/delete', { method: 'POST' })).status).toBe(400);
  });
});

describe('/{env}/prompt and /{env}/task_tools', () => {
  it('list shared and task-specific tools together for a session', async () => {
    const id = await t.session();
    const res = await send(t.base, '/testenv/task_tools', { headers: sid(id) });
    expect(res.status).toBe(200);
    const { tools } = res.json() as { tools: { name: string; description: string; input_schema: unknown }[] };
    expect(tools.map((tool) => tool.name)).toEqual([
      'echo',
      'wait',
      'refuse',
      'crash',
      'garbage',
      'noop',
      'describe',
      'hint',
    ]);
    expect(tools.at(-1)).toEqual({ name: 'hint', description: 'A hint for "What is 1+1?".', input_schema: null });
  });

  it('answer 400 without the header, 404 for an unknown or deleted session or an unknown environment', async () => {
    const id = await t.session();
    expect((await send(t.base, '/testenv/prompt')).status).toBe(400);
    expect((await send(t.base, '/testenv/prompt', { headers: sid('never') })).status).toBe(404);
    expect((await send(t.base, '/nope/prompt', { headers: sid(id) })).status).toBe(404);
    await send(t.base, '/delete', { method: 'POST', headers: sid(id) });
    const gone = await send(t.base, '/testenv/task_tools', { headers: sid(id) });
    expect(gone.status).toBe(404);
    expect(detailOf(gone)).toMatch(/^Session deleted: session ".+" was deleted; start a new episode/);
  });

  it('answer 500 with the reason, every time, when setup failed', async () => {
    await send(t.base, '/create', {
      method: 'POST',
      headers: sid('broken'),
      body: { task_spec: { question: 'q', fail_setup: true } },
    });
    for (const path of ['/testenv/prompt', '/testenv/task_tools']) {
      const res = await send(t.base, path, { headers: sid('broken') });
      expect(res.status).toBe(500);
      expect(detailOf(res)).toContain('no sandbox available');
    }
    expect(t.logged.map((entry) => entry.message)).toEqual(['setup of session "broken" (testenv) failed']);
    await send(t.base, '/delete', { method: 'POST', headers: sid('broken') });
    expect(t.probe.teardowns).toEqual([]);
  });

  it('answer 410 to a request that was waiting for setup when the session was deleted, and teardown still runs', async () => {
    // Embedded behind our own server, so the test knows when the prompt request has reached the handler.
    const { environment, probe } = createTestEnvironment();
    const ors = createOrsServer({ environments: [environment], logError: () => {} });
    const promptArrived = deferred();
    const http = createServer((req, res) => {
      ors.handler(req, res);
      if (req.url === '/testenv/prompt') promptArrived.resolve();
    });
    try {
      await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
      const base = `http://127.0.0.1:${(http.address() as AddressInfo).port}`;
      await send(base, '/create', {
        method: 'POST',
        headers: sid('doomed'),
        body: { task_spec: { question: 'q', hold_setup: 'doomed' } },
      });
      await probe.setupStarted('doomed');
      const waiting = send(base, '/testenv/prompt', { headers: sid('doomed') });
      await promptArrived.promise;
      await new Promise((resolve) => setImmediate(resolve));
      const deleted = send(base, '/delete', { method: 'POST', headers: sid('doomed') });
      const answer = await waiting;
      expect(answer.status).toBe(410);
      expect(detailOf(answer)).toMatch(/^Session deleted: session "doomed" was deleted/);
      probe.releaseSetup('doomed');
      expect((await deleted).status).toBe(200);
      expect(probe.teardowns).toEqual(['doomed']);
    } finally {
      await ors.close();
      await new Promise((resolve) => http.close(resolve));
    }
  });

  it('serve a session under any environment path segment, as the reference does not check it against the session', async () => {
    const server = createOrsServer({
      environments: [createTestEnvironment('alpha').environment, createTestEnvironment('beta').environment],
    });
    try {
      const base = await server.listen();
      await send(base, '/create', {
        method: 'POST',
        headers: sid('x'),
        body: { env_name: 'alpha', split: 'train', index: 0 },
      });
      expect((await send(base, '/beta/prompt', { headers: sid('x') })).status).toBe(200);
    } finally {
      await server.close();
    }
  });
});

describe('an environment that misbehaves', () => {
  it('gets a 500 with the reason for a prompt that is not ORS blocks, and a teardown that throws is logged while /delete still answers 200', async () => {
    const { environment } = createTestEnvironment('shaky');
    const logged: string[] = [];
    const server = createOrsServer({
      environments: [
        {
          ...environment,
          prompt: () => [{ type: 'text' }] as never,
          teardown: () => {
            throw new Error('cannot unmount');
          },
        },
      ],
      logError: (message, error) => logged.push(`${message}: ${(error as Error).message}`),
    });
    try {
      const base = await server.listen();
      await send(base, '/create', { method: 'POST', headers: sid('m'), body: { split: 'train', index: 0 } });
      const prompt = await send(base, '/shaky/prompt', { headers: sid('m') });
      expect(prompt.status).toBe(500);
      expect(detailOf(prompt)).toMatch(/^The prompt of environment "shaky" is not valid ORS output/);
      expect((await send(base, '/delete', { method: 'POST', headers: sid('m') })).status).toBe(200);
      expect(logged).toEqual([
        expect.stringMatching(/^GET \/shaky\/prompt failed: The prompt of environment "shaky" is not valid ORS output/),
        'teardown of session "m" (shaky) failed: cannot unmount',
      ]);
    } finally {
      await server.close();
    }
  });
});
