import { createServer, request, type Server } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { createOrsServer } from '../../../src/ors/server/create-ors-server.js';
import { eventually } from '../../support/eventually.js';
import { createTestEnvironment, deferred } from '../../support/test-environment.js';
import { watchTimers } from '../../support/watch-timers.js';
import { eventsOf, openSse, send } from './ors-test-client.js';
import { startTestServer, type TestServer } from './test-server.js';

let t: TestServer;
let started: TestServer | undefined;
afterEach(async () => {
  await started?.server.close();
  started = undefined;
});

async function start(options: Parameters<typeof startTestServer>[0] = {}): Promise<TestServer> {
  started = await startTestServer(options);
  return started;
}

const sid = (id: string) => ({ 'X-Session-ID': id });
const UNKNOWN = 'event: error\ndata: unknown task_id\n\n';

async function taskIdOf(stream: {
  nextEvent(): Promise<{ event: string | undefined; data: string } | undefined>;
}): Promise<string> {
  const first = await stream.nextEvent();
  expect(first?.event).toBe('task_id');
  return first?.data ?? '';
}

describe('reconnecting to a call by task_id', () => {
  it('streams a running task from its current state: task_id, pings, then the one result, without running the tool again', async () => {
    t = await start({ pingIntervalMs: 20 });
    const id = await t.session();
    const body = { name: 'wait', input: { key: 'r' } };
    const original = await openSse(t.base, '/testenv/call', { headers: sid(id), body });
    const taskId = await taskIdOf(original);
    await t.probe.started('r');
    const resumed = await openSse(t.base, '/testenv/call', { headers: sid(id), body: { ...body, task_id: taskId } });
    expect(await taskIdOf(resumed)).toBe(taskId);
    expect((await resumed.next())?.kind).toBe('comment');
    t.probe.release('r', 'finally');
    const [fromOriginal, fromResumed] = [eventsOf(await original.rest()).at(-1), eventsOf(await resumed.rest()).at(-1)];
    expect(fromResumed?.[0]).toBe('end');
    expect(fromResumed).toEqual(fromOriginal);
    expect(t.probe.runs.get('wait')).toBe(1);
  });

  it('answers a finished task at once from the cache', async () => {
    t = await start();
    const id = await t.session();
    const body = { name: 'echo', input: { text: 'cached' } };
    const first = await openSse(t.base, '/testenv/call', { headers: sid(id), body });
    const taskId = await taskIdOf(first);
    const result = eventsOf(await first.rest()).at(-1);
    const again = await openSse(t.base, '/testenv/call', { headers: sid(id), body: { ...body, task_id: taskId } });
    await again.rest();
    expect(again.raw).toBe(`event: task_id\ndata: ${taskId}\n\nevent: end\ndata: ${result?.[1]}\n\n`);
    expect(t.probe.runs.get('echo')).toBe(1);
  });

  it('answers an unknown task id with a lone event error and does not run the tool', async () => {
    t = await start();
    const id = await t.session();
    const stream = await openSse(t.base, '/testenv/call', {
      headers: sid(id),
      body: { name: 'echo', input: { text: 'x' }, task_id: '0123456789abcdef0123456789abcdef' },
    });
    await stream.rest();
    expect(stream.status).toBe(200);
    expect(stream.raw).toBe(UNKNOWN);
    expect(t.probe.runs.get('echo')).toBeUndefined();
  });

  it("treats another session's task id as unknown", async () => {
    t = await start();
    const owner = await t.session();
    const stranger = await t.session({ split: 'train', index: 1 });
    const body = { name: 'echo', input: { text: 'mine' } };
    const first = await openSse(t.base, '/testenv/call', { headers: sid(owner), body });
    const taskId = await taskIdOf(first);
    await first.rest();
    const stolen = await openSse(t.base, '/testenv/call', {
      headers: sid(stranger),
      body: { ...body, task_id: taskId },
    });
    await stolen.rest();
    expect(stolen.raw).toBe(UNKNOWN);
    const own = await openSse(t.base, '/testenv/call', { headers: sid(owner), body: { ...body, task_id: taskId } });
    expect(eventsOf(await own.rest()).map(([event]) => event)).toEqual(['task_id', 'end']);
    expect(t.probe.runs.get('echo')).toBe(1);
  });

  it('refuses a reconnect whose tool name or input differ from the original call, with a lone event error', async () => {
    t = await start();
    const id = await t.session();
    const first = await openSse(t.base, '/testenv/call', {
      headers: sid(id),
      body: { name: 'echo', input: { text: 'a', reward: 1 } },
    });
    const taskId = await taskIdOf(first);
    await first.rest();
    for (const body of [
      { name: 'echo', input: { text: 'b', reward: 1 } },
      { name: 'noop', input: { text: 'a', reward: 1 } },
    ]) {
      const stream = await openSse(t.base, '/testenv/call', { headers: sid(id), body: { ...body, task_id: taskId } });
      expect(eventsOf(await stream.rest())).toEqual([
        [
          'error',
          `task_id ${taskId} belongs to another call (tool "echo" with its own input); reconnect with that call's name and input, or leave task_id out to start a new call.`,
        ],
      ]);
    }
    // Key order is not a difference: JSON objects are unordered.
    const reordered = await openSse(t.base, '/testenv/call', {
      headers: sid(id),
      body: { name: 'echo', input: { reward: 1, text: 'a' }, task_id: taskId },
    });
    expect(eventsOf(await reordered.rest()).map(([event]) => event)).toEqual(['task_id', 'end']);
  });

  it('forgets a finished result once resultCacheMs has passed', async () => {
    t = await start({ resultCacheMs: 30 });
    const id = await t.session();
    const body = { name: 'echo', input: { text: 'fleeting' } };
    const first = await openSse(t.base, '/testenv/call', { headers: sid(id), body });
    const taskId = await taskIdOf(first);
    await first.rest();
    await eventually(async () => {
      const again = await openSse(t.base, '/testenv/call', { headers: sid(id), body: { ...body, task_id: taskId } });
      await again.rest();
      if (again.raw === UNKNOWN) return true;
      // Until it is forgotten, the result is served again.
      expect(again.raw).toMatch(/event: end\n/);
      return false;
    }, 'the result forgotten');
    expect(t.probe.runs.get('echo')).toBe(1);
  });
});

describe('a client that disconnects during a call', () => {
  it('does not cancel the tool: it completes and its result is collected by reconnecting', async () => {
    const { environment, probe } = createTestEnvironment();
    const ors = createOrsServer({ environments: [environment], logError: () => {} });
    // Our own server around the handler, so the test sees the server side of the connection close.
    const serverSockets: Socket[] = [];
    const http: Server = createServer(ors.handler);
    http.on('connection', (socket) => serverSockets.push(socket));
    try {
      await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
      const base = `http://127.0.0.1:${(http.address() as AddressInfo).port}`;
      await send(base, '/create', { method: 'POST', headers: sid('d'), body: { split: 'train', index: 0 } });
      const body = { name: 'wait', input: { key: 'gone' } };
      const stream = await openSse(base, '/testenv/call', { headers: sid('d'), body });
      const taskId = await taskIdOf(stream);
      const signal = await probe.started('gone');
      const callSocket = serverSockets.at(-1);
      const serverSaw = new Promise((resolve) => callSocket?.once('close', resolve));
      await stream.disconnect();
      await serverSaw;

      probe.release('gone', 'still here');
      expect(await probe.ended('gone')).toBe('returned');
      expect(signal.aborted).toBe(false);
      const resumed = await openSse(base, '/testenv/call', { headers: sid('d'), body: { ...body, task_id: taskId } });
      const events = eventsOf(await resumed.rest());
      expect(events.map(([event]) => event)).toEqual(['task_id', 'end']);
      expect(JSON.parse(events[1]?.[1] ?? '').output.blocks[0].text).toBe('still here');
      expect(probe.runs.get('wait')).toBe(1);
    } finally {
      await ors.close();
      await new Promise((resolve) => http.close(resolve));
    }
  });

  it('that left while its call waited for setup still gets the tool run, and leaves no ping timer running', async () => {
    const { environment, probe } = createTestEnvironment();
    const ors = createOrsServer({ environments: [environment], pingIntervalMs: 10, logError: () => {} });
    const serverSockets: Socket[] = [];
    const callArrived = deferred();
    const http: Server = createServer((req, res) => {
      ors.handler(req, res);
      if (req.url === '/testenv/call') callArrived.resolve();
    });
    http.on('connection', (socket) => serverSockets.push(socket));
    try {
      await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
      const base = `http://127.0.0.1:${(http.address() as AddressInfo).port}`;
      await send(base, '/create', {
        method: 'POST',
        headers: sid('late'),
        body: { task_spec: { question: 'q', hold_setup: 'late' } },
      });
      await probe.setupStarted('late');
      const req = request(new URL('/testenv/call', base), {
        method: 'POST',
        headers: { ...sid('late'), 'Content-Type': 'application/json' },
        agent: false,
      });
      req.on('error', () => {});
      req.end(JSON.stringify({ name: 'wait', input: { key: 'orphan' } }));
      await callArrived.promise;
      await new Promise((resolve) => setImmediate(resolve));
      const serverSaw = new Promise((resolve) => serverSockets.at(-1)?.once('close', resolve));
      req.destroy();
      await serverSaw;
      const pings = watchTimers((ms) => ms === 10);

      probe.releaseSetup('late');
      const signal = await probe.started('orphan');
      expect(signal.aborted).toBe(false);
      expect(await pings.pending()).toBe(0);
      probe.release('orphan', 'nobody listens');
      expect(await probe.ended('orphan')).toBe('returned');
    } finally {
      await ors.close();
      await new Promise((resolve) => http.close(resolve));
    }
  });
});
