import { createServer } from 'node:http';
import { describe, expect, it, onTestFinished } from 'vitest';
import { z } from 'zod';
import { defineEnvironment, defineTool, taskList } from '../../../src/ors/environment.js';
import { createOrsServer } from '../../../src/ors/server/create-ors-server.js';
import { createTestEnvironment } from '../../support/test-environment.js';
import { trackSourceTimers } from '../../support/track-source-timers.js';
import { eventsOf, openSse, send } from './ors-test-client.js';

const sid = (id: string) => ({ 'X-Session-ID': id });

describe('close()', () => {
  it('ends every call and session, runs every teardown, and leaves no session and no timer behind', async () => {
    // Only the server's own timers count: a process-wide count also sees timers of fetch's
    // connection pool and of other tests, which come and go on their own.
    const timers = trackSourceTimers();
    onTestFinished(() => timers.restore());
    const { environment, probe } = createTestEnvironment();
    const server = createOrsServer({
      environments: [environment],
      pingIntervalMs: 50,
      sessionIdleMs: 60_000,
      logError: () => {},
    });
    const base = await server.listen();
    for (const id of ['a', 'b', 'held']) {
      const task = id === 'held' ? { task_spec: { question: 'q', hold_setup: 'held' } } : { split: 'train', index: 0 };
      await send(base, '/create', { method: 'POST', headers: sid(id), body: task });
    }
    // A finished call (its result cached behind a timer) and a running one (pinging).
    await (
      await openSse(base, '/testenv/call', { headers: sid('a'), body: { name: 'echo', input: { text: 'x' } } })
    ).rest();
    const running = await openSse(base, '/testenv/call', {
      headers: sid('b'),
      body: { name: 'wait', input: { key: 'forever' } },
    });
    const signal = await probe.started('forever');
    await probe.setupStarted('held');
    expect(server.activeSessionIds()).toEqual(['a', 'b', 'held']);

    const closed = server.close();
    probe.releaseSetup('held');
    await closed;

    expect(server.activeSessionIds()).toEqual([]);
    expect(probe.teardowns.sort()).toEqual(['a', 'b', 'held']);
    expect(signal.aborted).toBe(true);
    const events = eventsOf(await running.rest());
    expect(events.at(-1)).toEqual([
      'error',
      'Session deleted: session "b" was closed because the ORS server shut down',
    ]);
    expect(timers.pending()).toEqual([]);
    await expect(send(base, '/health')).rejects.toThrow();
  });

  it('is idempotent and refuses to listen again afterwards', async () => {
    const server = createOrsServer({ environments: [createTestEnvironment().environment] });
    await server.listen();
    await Promise.all([server.close(), server.close()]);
    await server.close();
    await expect(server.listen()).rejects.toThrow(/was closed/);
  });

  it('works for a server that never listened, and then refuses new sessions with 503 through its handler', async () => {
    const server = createOrsServer({ environments: [createTestEnvironment().environment] });
    await server.close();
    const http = createServer(server.handler);
    try {
      await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
      const address = http.address();
      const base = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
      const res = await send(base, '/create', {
        method: 'POST',
        headers: sid('late'),
        body: { split: 'train', index: 0 },
      });
      expect(res.status).toBe(503);
      expect(res.headers.connection).toBe('close');
    } finally {
      await new Promise((resolve) => http.close(resolve));
    }
  });
});

describe('listen()', () => {
  it('resolves to the base URL on 127.0.0.1 and refuses a second listen while listening', async () => {
    const server = createOrsServer({ environments: [createTestEnvironment().environment] });
    try {
      const base = await server.listen();
      expect(base).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
      expect((await send(base, '/health')).status).toBe(200);
      await expect(server.listen()).rejects.toThrow(/already listening/);
    } finally {
      await server.close();
    }
  });
});

describe('createOrsServer', () => {
  const tool = defineTool<unknown, { a: string }>({
    name: 't',
    description: 'd',
    input: z.object({ a: z.string() }),
    run: () => ({ blocks: [] }),
  });
  const env = (overrides: Record<string, unknown>) =>
    defineEnvironment({
      name: 'e',
      splits: [{ name: 'train', type: 'train' }],
      tasks: taskList({ train: [{}] }),
      taskSchema: z.object({}),
      tools: [tool],
      setup: () => ({}),
      prompt: () => [],
      ...overrides,
    });

  it('refuses, at once and with a reason, definitions it could not serve', () => {
    expect(() => createOrsServer({ environments: [] })).toThrow(/at least one environment/);
    expect(() => createOrsServer({ environments: [env({}), env({ name: 'E' })] })).toThrow(
      /Two environments are named "E"/,
    );
    expect(() => createOrsServer({ environments: [env({ name: 'a/b' })] })).toThrow(/must be letters, digits/);
    expect(() => createOrsServer({ environments: [env({ tools: [] })] })).toThrow(/has no tools/);
    expect(() => createOrsServer({ environments: [env({ splits: [] })] })).toThrow(/has no splits/);
    expect(() => createOrsServer({ environments: [env({ splits: [{ name: 'x', type: 'dev' }] })] })).toThrow(
      /invalid split/,
    );
    expect(() => createOrsServer({ environments: [env({ tools: [tool, tool] })] })).toThrow(/two tools named "t"/);
    expect(() => createOrsServer({ environments: [env({ tools: [{ ...tool, input: z.string() }] })] })).toThrow(
      /must take an object input/,
    );
  });

  it('refuses options that are not positive numbers, and a chunk size below 2', () => {
    const environments = [env({})];
    expect(() => createOrsServer({ environments, pingIntervalMs: 0 })).toThrow(/pingIntervalMs/);
    expect(() => createOrsServer({ environments, sessionIdleMs: -1 })).toThrow(/sessionIdleMs/);
    expect(() => createOrsServer({ environments, resultCacheMs: Number.NaN })).toThrow(/resultCacheMs/);
    expect(() => createOrsServer({ environments, chunkSize: 1 })).toThrow(/chunkSize/);
  });
});
