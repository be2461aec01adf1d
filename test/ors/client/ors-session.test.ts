import { afterEach, describe, expect, it } from 'vitest';
import { OrsError } from '../../../src/errors.js';
import { type OrsTestRig, rejectionOf, startOrsTestRig } from '../../support/ors-test-rig.js';
import { trackSourceTimers } from '../../support/track-source-timers.js';

describe('OrsClient.openSession and OrsSession', () => {
  let rig: OrsTestRig | undefined;
  afterEach(async () => {
    await rig?.close();
    rig = undefined;
  });

  it('opens a session from the reference SSE create_session answer and always sends env_name', async () => {
    rig = await startOrsTestRig();
    const session = await rig.openSession({ task: { split: 'train', index: 1 }, secrets: { api_key: 'sk-1' } });
    expect(session.sid).toMatch(/^[0-9a-f-]{36}$/);
    expect(session.env).toBe('arith');
    expect(rig.server.requestsTo('/create')).toEqual([
      {
        method: 'POST',
        path: '/create',
        sid: session.sid,
        body: { env_name: 'arith', split: 'train', index: 1, secrets: { api_key: 'sk-1' } },
      },
    ]);
  });

  it('opens a session from a plain JSON create_session answer and a task spec', async () => {
    rig = await startOrsTestRig({ server: { createSessionForm: 'json' } });
    const session = await rig.openSession({ task: { spec: { a: 4, b: 4 } } });
    expect(rig.server.requestsTo('/create')[0]?.body).toEqual({ env_name: 'arith', task_spec: { a: 4, b: 4 } });
    expect(await session.prompt()).toEqual([
      { type: 'text', text: 'What is 4 + 4? Answer with the submit tool.', detail: null },
    ]);
  });

  it('deletes the session and rethrows unknown_env when /create does not know the environment', async () => {
    rig = await startOrsTestRig();
    const error = await rejectionOf(rig.client.openSession({ env: 'nope', task: { split: 'train', index: 0 } }));
    expect(error).toMatchObject({ code: 'unknown_env', status: 404 });
    const sid = rig.server.requestsTo('/create')[0]?.sid;
    expect(rig.server.requests.filter((request) => request.sid === sid).map((request) => request.path)).toEqual([
      '/create',
      '/delete',
      '/delete_session',
    ]);
    expect(rig.server.openSessions()).toEqual([]);
  });

  it('deletes the session and rethrows invalid_task when /create rejects the index', async () => {
    rig = await startOrsTestRig();
    const error = await rejectionOf(rig.openSession({ task: { split: 'train', index: 42 } }));
    expect(error).toMatchObject({ code: 'invalid_task', status: 400 });
    expect(rig.server.requestsTo('/delete_session')).toHaveLength(1);
    expect(rig.server.openSessions()).toEqual([]);
  });

  it('words invalid_task for the spec, not for split and index, when /create rejects a task spec', async () => {
    rig = await startOrsTestRig();
    rig.proxy.inject({ path: '/create', fault: { type: 'status', status: 400, detail: 'question: required' } });
    const error = (await rejectionOf(rig.openSession({ task: { spec: { a: 1 } } }))) as OrsError;
    expect(error).toMatchObject({ code: 'invalid_task', status: 400 });
    expect(error.message).toMatch(/rejected the task spec \(400: question: required\)\. Check task\.spec/);
    expect(error.message).not.toMatch(/split|index/);
  });

  it('keeps secrets out of the error when the server quotes the request back', async () => {
    rig = await startOrsTestRig({ server: { rejectCreateWith422: true } });
    const secrets = { api_key: 'sk-very-secret', nested: { token: 'tok "quoted" value' } };
    const error = (await rejectionOf(rig.openSession({ secrets }))) as OrsError;
    expect(error).toMatchObject({ code: 'ors_request_rejected', details: { status: 422 } });
    const visible = `${error.message} ${JSON.stringify(error.details)}`;
    expect(visible).toContain('[redacted]');
    expect(visible).not.toContain('sk-very-secret');
    expect(visible).not.toContain('quoted');
    expect(rig.server.openSessions()).toEqual([]);
  });

  it('does not resend /create after a dropped connection, and cleans up', async () => {
    rig = await startOrsTestRig();
    rig.proxy.inject({ path: '/create', fault: { type: 'reset-before-response' } });
    const error = await rejectionOf(rig.openSession());
    expect(error).toMatchObject({ code: 'ors_unavailable', details: { attempts: 1 } });
    expect(rig.server.requestsTo('/create')).toHaveLength(1);
    expect(rig.server.openSessions()).toEqual([]);
  });

  it('retries /create after a 503 that never reached the server', async () => {
    rig = await startOrsTestRig();
    rig.proxy.inject({ path: '/create', fault: { type: 'status', status: 503 } });
    const session = await rig.openSession();
    expect(rig.proxy.requestsTo('/create')).toHaveLength(2);
    expect(rig.server.openSessions()).toEqual([session.sid]);
  });

  it('deletes the session and rejects with the abort reason when aborted during /create', async () => {
    rig = await startOrsTestRig();
    rig.proxy.inject({ path: '/create', fault: { type: 'silent' } });
    const controller = new AbortController();
    const opening = rig.openSession({ signal: controller.signal });
    const server = rig.server;
    await server.waitForRequest((request) => request.path === '/create');
    const reason = new Error('run cancelled');
    controller.abort(reason);
    expect(await rejectionOf(opening)).toBe(reason);
    const sid = server.requestsTo('/create')[0]?.sid;
    expect(server.requestsTo('/delete_session').map((request) => request.sid)).toEqual([sid]);
    expect(server.openSessions()).toEqual([]);
  });

  it('lists task tools, shared and task-only', async () => {
    rig = await startOrsTestRig();
    const session = await rig.openSession();
    expect((await session.tools()).map((tool) => tool.name)).toEqual(['submit', 'hint']);
  });

  it('falls back to /{env}/tools when /{env}/task_tools answers 404, and keeps the session', async () => {
    rig = await startOrsTestRig({ server: { taskTools: false } });
    const session = await rig.openSession();
    expect((await session.tools()).map((tool) => tool.name)).toEqual(['submit']);
    expect(rig.server.requests.map((request) => request.path).slice(-2)).toEqual(['/arith/task_tools', '/arith/tools']);
    expect(session.lost.aborted).toBe(false);
  });

  it('closes idempotently: /delete then /delete_session once, and later calls are refused', async () => {
    rig = await startOrsTestRig();
    const session = await rig.openSession();
    await Promise.all([session.close(), session.close()]);
    await session.close();
    expect(session.closed).toBe(true);
    const paths = rig.server.requests.filter((request) => request.sid === session.sid).map((request) => request.path);
    expect(paths).toEqual(['/create', '/delete', '/delete_session']);
    await expect(session.prompt()).rejects.toMatchObject({ code: 'ors_session_closed' });
  });

  it('still resolves close() when the server cannot be reached', async () => {
    rig = await startOrsTestRig({ client: { retries: 1 } });
    const session = await rig.openSession();
    rig.proxy.inject({ path: '/delete', fault: { type: 'status', status: 500 }, times: 5 });
    rig.proxy.inject({ path: '/delete_session', fault: { type: 'status', status: 500 }, times: 5 });
    await expect(session.close()).resolves.toBeUndefined();
    expect(rig.proxy.requestsTo('/delete')).toHaveLength(2);
    expect(rig.proxy.requestsTo('/delete_session')).toHaveLength(2);
  });

  it('marks the session lost when a session endpoint answers 410', async () => {
    rig = await startOrsTestRig();
    const session = await rig.openSession();
    rig.proxy.inject({ path: '/arith/prompt', fault: { type: 'status', status: 410, detail: 'Session was deleted' } });
    const error = await rejectionOf(session.prompt());
    expect(error).toMatchObject({ code: 'ors_session_lost', details: { status: 410, sid: session.sid } });
    expect(session.lost.aborted).toBe(true);
    expect(session.lost.reason).toBe(error);
  });

  it('rejects every later request with the loss, without sending it, also once closed', async () => {
    rig = await startOrsTestRig();
    const session = await rig.openSession();
    rig.proxy.inject({ path: '/arith/prompt', fault: { type: 'status', status: 410, detail: 'Session was deleted' } });
    const lost = await rejectionOf(session.prompt());
    const sent = rig.server.requests.length;
    await expect(session.tools()).rejects.toBe(lost);
    await expect(session.call('submit', { answer: 1 })).rejects.toBe(lost);
    await session.close();
    await expect(session.prompt()).rejects.toBe(lost);
    const after = rig.server.requests.slice(sent).map((request) => request.path);
    expect(after).toEqual(['/delete', '/delete_session']);
  });
});

describe('OrsSession ping loop', () => {
  let rig: OrsTestRig | undefined;
  afterEach(async () => {
    await rig?.close();
    rig = undefined;
  });

  it('pings while open and stops, leaving no timer behind, on close', async () => {
    const timers = trackSourceTimers();
    try {
      rig = await startOrsTestRig({ client: { pingIntervalMs: 5 } });
      const session = await rig.openSession();
      const server = rig.server;
      await server.waitForRequest((request) => request.path === '/ping' && server.requestsTo('/ping').length >= 3);
      expect(server.requestsTo('/ping').every((request) => request.sid === session.sid)).toBe(true);
      // The ping just received is still waiting for its answer, under its request timer.
      expect(timers.pending()).toEqual([expect.stringContaining('/src/ors/client/abort-scope.ts')]);
      await session.close();
      expect(timers.pending()).toEqual([]);
      const paths = server.requests.map((request) => request.path);
      expect(paths.slice(-2)).toEqual(['/delete', '/delete_session']);
      expect(paths.lastIndexOf('/ping')).toBeLessThan(paths.indexOf('/delete'));
      expect(session.lost.aborted).toBe(false);
    } finally {
      timers.restore();
    }
  });

  it('aborts lost with ors_session_lost when a ping answers 404, and stops pinging', async () => {
    const timers = trackSourceTimers();
    try {
      rig = await startOrsTestRig({ client: { pingIntervalMs: 5 } });
      const session = await rig.openSession();
      rig.server.expireSession(session.sid);
      const reason = await new Promise<unknown>((resolve) =>
        session.lost.addEventListener('abort', () => resolve(session.lost.reason), { once: true }),
      );
      expect(reason).toBeInstanceOf(OrsError);
      expect(reason).toMatchObject({ code: 'ors_session_lost', details: { endpoint: 'POST /ping', status: 404 } });
      expect(timers.pending()).toEqual([]);
      await expect(session.prompt()).rejects.toBe(reason);
    } finally {
      timers.restore();
    }
  });

  it('declares the session lost after pings keep failing', async () => {
    rig = await startOrsTestRig({ client: { pingIntervalMs: 5, retries: 0 } });
    const session = await rig.openSession();
    rig.proxy.inject({ path: '/ping', fault: { type: 'status', status: 503 }, times: 3 });
    const reason = await new Promise<unknown>((resolve) =>
      session.lost.addEventListener('abort', () => resolve(session.lost.reason), { once: true }),
    );
    expect(reason).toMatchObject({ code: 'ors_session_lost' });
    expect((reason as Error).message).toContain('3 pings in a row failed');
  });
});
