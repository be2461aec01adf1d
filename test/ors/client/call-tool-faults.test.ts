import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { OrsError } from '../../../src/errors.js';
import { OrsClient } from '../../../src/ors/client/ors-client.js';
import {
  deferred,
  type OrsTestRig,
  rejectionOf,
  startOrsTestRig,
  TEST_CLIENT_OPTIONS,
} from '../../support/ors-test-rig.js';
import { textBlock } from '../../support/scripted-ors-environment.js';
import { trackSourceTimers } from '../../support/track-source-timers.js';

const CORRECT = { type: 'output', taskId: expect.any(String), output: expect.objectContaining({ reward: 1 }) };

describe('OrsSession.call under faults', () => {
  let rig: OrsTestRig | undefined;
  afterEach(async () => {
    await rig?.close();
    rig = undefined;
  });

  it('reconnects with the same task_id after a drop following task_id, and the tool runs once', async () => {
    rig = await startOrsTestRig();
    rig.proxy.inject({ path: '/arith/call', fault: { type: 'drop-after-task-id' } });
    const session = await rig.openSession();
    const outcome = await session.call('submit', { answer: 5 });
    expect(outcome).toEqual(CORRECT);
    expect(rig.server.executions('submit')).toBe(1);
    const bodies = rig.server.requestsTo('/arith/call').map((request) => request.body);
    expect(bodies).toEqual([
      { name: 'submit', input: { answer: 5 } },
      { name: 'submit', input: { answer: 5 }, task_id: (outcome as { taskId: string }).taskId },
    ]);
  });

  it('reconnects to a tool that is still running and gets its result when it finishes', async () => {
    rig = await startOrsTestRig();
    const gate = deferred();
    rig.server.defineTool('arith', 'slow', {
      async run() {
        await gate.promise;
        return { ok: true, output: { blocks: [textBlock('slow done')], reward: 1 } };
      },
    });
    rig.proxy.inject({ path: '/arith/call', fault: { type: 'drop-after-task-id' } });
    const session = await rig.openSession();
    const call = session.call('slow', {});
    const server = rig.server;
    await server.waitForRequest(() => server.requestsTo('/arith/call').length === 2);
    gate.resolve();
    expect(await call).toEqual(CORRECT);
    expect(server.executions('slow')).toBe(1);
  });

  it('discards the chunks of a broken attempt when the stream drops in the middle of a chunked result', async () => {
    rig = await startOrsTestRig();
    const text = 'x'.repeat(20_000);
    rig.server.defineTool('arith', 'big', {
      run: () => ({ ok: true, output: { blocks: [textBlock(text)], reward: 1 } }),
    });
    rig.proxy.inject({ path: '/arith/call', fault: { type: 'drop-after-bytes', bytes: 9_000 } });
    const session = await rig.openSession();
    const outcome = await session.call('big', {});
    expect(outcome).toMatchObject({ type: 'output', output: { blocks: [{ text }] } });
    expect(rig.server.executions('big')).toBe(1);
    expect(rig.proxy.requestsTo('/arith/call')).toHaveLength(2);
  });

  it('reconnects when the stream goes silent after task_id', async () => {
    rig = await startOrsTestRig({ client: { callSilenceTimeoutMs: 200 } });
    rig.proxy.inject({ path: '/arith/call', fault: { type: 'silent-after-task-id' } });
    const session = await rig.openSession();
    expect(await session.call('submit', { answer: 5 })).toEqual(CORRECT);
    expect(rig.server.executions('submit')).toBe(1);
    expect(rig.server.requestsTo('/arith/call')[1]?.body).toMatchObject({ task_id: expect.any(String) });
  });

  it('treats ping comments as life: a long tool that pings is not reconnected', async () => {
    rig = await startOrsTestRig({ server: { pingIntervalMs: 10 }, client: { callSilenceTimeoutMs: 2_000 } });
    rig.server.defineTool('arith', 'patient', {
      async run(_input, context) {
        // Longer than the silence timeout, with nothing but ping comments on the wire: the tool runs
        // on until it has outlasted it, so the scenario holds however fast the pings come.
        const started = performance.now();
        while (performance.now() - started <= 2_500) await context.untilPinged();
        return { ok: true, output: { blocks: [textBlock('done')], reward: 1 } };
      },
    });
    const session = await rig.openSession();
    expect(await session.call('patient', {})).toEqual(CORRECT);
    expect(rig.proxy.requestsTo('/arith/call')).toHaveLength(1);
  });

  it('returns unknown_task when the reconnect is answered "unknown task_id"', async () => {
    rig = await startOrsTestRig({ server: { taskCache: false } });
    rig.proxy.inject({ path: '/arith/call', fault: { type: 'drop-after-task-id' } });
    const session = await rig.openSession();
    const outcome = await session.call('submit', { answer: 5 });
    const reconnect = rig.server.requestsTo('/arith/call')[1]?.body as { task_id: string };
    expect(outcome).toEqual({ type: 'unknown_task', taskId: reconnect.task_id, error: 'unknown task_id' });
    expect(rig.server.executions('submit')).toBe(1);
  });

  it('sends the call again fresh after a 503 that came before any stream', async () => {
    rig = await startOrsTestRig();
    rig.proxy.inject({ path: '/arith/call', fault: { type: 'status', status: 503 }, times: 2 });
    const session = await rig.openSession();
    expect(await session.call('submit', { answer: 5 })).toEqual(CORRECT);
    expect(rig.proxy.requestsTo('/arith/call')).toHaveLength(3);
    expect(rig.server.requestsTo('/arith/call')[0]?.body).toEqual({ name: 'submit', input: { answer: 5 } });
    expect(rig.server.executions('submit')).toBe(1);
  });

  it('sends the call again fresh after a refused connection', async () => {
    rig = await startOrsTestRig();
    const deadPort = await unusedPort();
    let refused = 0;
    // The first call goes to a port nothing listens on: the OS refuses it, so the tool cannot have started.
    const refuseFirstCall: typeof fetch = (input, init) => {
      const url = String(input);
      if (url.endsWith('/arith/call') && refused === 0) {
        refused += 1;
        return fetch(url.replace(/:\d+\//, `:${deadPort}/`), init);
      }
      return fetch(input, init);
    };
    const server = rig.server;
    const client = new OrsClient({ ...TEST_CLIENT_OPTIONS, baseUrl: server.url, fetch: refuseFirstCall });
    const session = await client.openSession({ env: 'arith', task: { split: 'train', index: 0 } });
    try {
      expect(await session.call('submit', { answer: 5 })).toEqual(CORRECT);
      expect(refused).toBe(1);
      expect(server.requestsTo('/arith/call').map((request) => request.body)).toEqual([
        { name: 'submit', input: { answer: 5 } },
      ]);
    } finally {
      await session.close();
    }
  });

  it('refuses to resend with ors_call_interrupted when the connection breaks before task_id', async () => {
    rig = await startOrsTestRig();
    rig.proxy.inject({ path: '/arith/call', fault: { type: 'reset-before-response' } });
    const session = await rig.openSession();
    const error = await rejectionOf(session.call('submit', { answer: 5 }));
    expect(error).toBeInstanceOf(OrsError);
    expect(error).toMatchObject({ code: 'ors_call_interrupted', details: { tool: 'submit' } });
    expect(rig.proxy.requestsTo('/arith/call')).toHaveLength(1);
    expect(rig.server.executions('submit')).toBe(1);
  });

  it('refuses to resend with ors_call_interrupted when the server is silent before task_id', async () => {
    rig = await startOrsTestRig({ client: { callSilenceTimeoutMs: 200 } });
    rig.proxy.inject({ path: '/arith/call', fault: { type: 'silent' } });
    const session = await rig.openSession();
    const error = await rejectionOf(session.call('submit', { answer: 5 }));
    expect(error).toMatchObject({ code: 'ors_call_interrupted' });
    expect((error as Error).message).toContain('sent nothing for 200 ms');
    expect(rig.proxy.requestsTo('/arith/call')).toHaveLength(1);
  });

  it('gives up with ors_bad_response when every stream ends without end or error', async () => {
    rig = await startOrsTestRig();
    rig.proxy.inject({ path: '/arith/call', fault: { type: 'end-after-task-id' }, times: 10 });
    const session = await rig.openSession();
    const error = await rejectionOf(session.call('submit', { answer: 5 }));
    expect(error).toMatchObject({ code: 'ors_bad_response', details: { attempts: 4 } });
    expect((error as Error).message).toContain('without an end or error event');
    expect(rig.server.executions('submit')).toBe(1);
  });

  it('gives up with ors_unavailable when every reconnect drops too', async () => {
    rig = await startOrsTestRig();
    rig.proxy.inject({ path: '/arith/call', fault: { type: 'drop-after-task-id' }, times: 10 });
    const session = await rig.openSession();
    const error = await rejectionOf(session.call('submit', { answer: 5 }));
    expect(error).toMatchObject({ code: 'ors_unavailable', details: { attempts: 4, taskId: expect.any(String) } });
    expect(rig.server.executions('submit')).toBe(1);
  });
});

describe('OrsSession.call cancellation', () => {
  let rig: OrsTestRig | undefined;
  afterEach(async () => {
    await rig?.close();
    rig = undefined;
  });

  it('rejects with the abort reason mid-call, leaves no timer, and close() still deletes the session', async () => {
    const timers = trackSourceTimers();
    const gate = deferred();
    try {
      rig = await startOrsTestRig({ client: { pingIntervalMs: 600_000 } });
      rig.server.defineTool('arith', 'forever', {
        async run() {
          await gate.promise;
          return { ok: true, output: { blocks: [] } };
        },
      });
      const session = await rig.openSession();
      const controller = new AbortController();
      const call = session.call('forever', {}, { signal: controller.signal });
      await rig.server.waitForExecution('forever');
      const reason = new Error('cancelled by the client');
      controller.abort(reason);
      expect(await rejectionOf(call)).toBe(reason);
      await session.close();
      expect(timers.pending()).toEqual([]);
      expect(rig.server.requests.slice(-2).map((request) => [request.path, request.sid])).toEqual([
        ['/delete', session.sid],
        ['/delete_session', session.sid],
      ]);
    } finally {
      gate.resolve();
      timers.restore();
    }
  });

  it('aborts a call in flight when the session is closed', async () => {
    rig = await startOrsTestRig();
    const gate = deferred();
    rig.server.defineTool('arith', 'forever', {
      async run() {
        await gate.promise;
        return { ok: true, output: { blocks: [] } };
      },
    });
    const session = await rig.openSession();
    const call = session.call('forever', {});
    await rig.server.waitForExecution('forever');
    const rejected = rejectionOf(call);
    await session.close();
    expect(await rejected).toMatchObject({ code: 'ors_session_closed' });
    expect(rig.server.openSessions()).toEqual([]);
    gate.resolve();
  });

  it('aborts a call in flight when pings learn the session is gone', async () => {
    rig = await startOrsTestRig({ client: { pingIntervalMs: 5 } });
    const gate = deferred();
    rig.server.defineTool('arith', 'forever', {
      async run() {
        await gate.promise;
        return { ok: true, output: { blocks: [] } };
      },
    });
    const session = await rig.openSession();
    const call = session.call('forever', {});
    await rig.server.waitForExecution('forever');
    rig.server.expireSession(session.sid);
    const error = await rejectionOf(call);
    expect(error).toMatchObject({ code: 'ors_session_lost' });
    expect(error).toBe(session.lost.reason);
    gate.resolve();
  });
});

async function unusedPort(): Promise<number> {
  const probe = http.createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const port = (probe.address() as AddressInfo).port;
  await new Promise((resolve) => probe.close(resolve));
  return port;
}
