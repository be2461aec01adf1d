import { afterEach, describe, expect, it } from 'vitest';
import { eventsOf, openSse, send } from './ors-test-client.js';
import { startTestServer, type TestServer } from './test-server.js';

let t: TestServer;
afterEach(async () => {
  await t.server.close();
});

const sid = (id: string) => ({ 'X-Session-ID': id });
const call = (id: string, body: Record<string, unknown>) =>
  openSse(t.base, '/testenv/call', { headers: sid(id), body });

describe('/{env}/call', () => {
  it('streams exactly task_id then end with the whole result, every key present, under SSE headers', async () => {
    t = await startTestServer();
    const id = await t.session();
    const stream = await call(id, { name: 'echo', input: { text: 'hi', reward: 1, finished: true } });
    expect(stream.status).toBe(200);
    expect(stream.headers['content-type']).toBe('text/event-stream; charset=utf-8');
    expect(stream.headers['cache-control']).toBe('no-cache');
    expect(stream.headers['x-accel-buffering']).toBe('no');
    await stream.rest();
    expect(stream.raw).toMatch(
      /^event: task_id\ndata: [0-9a-f]{32}\n\nevent: end\ndata: \{"ok":true,"output":\{"blocks":\[\{"text":"hi","detail":null,"type":"text"\}\],"metadata":null,"reward":1,"finished":true\}\}\n\n$/,
    );
  });

  it('fills metadata, reward and finished with null, null and false when the tool leaves them out', async () => {
    t = await startTestServer();
    const id = await t.session();
    const items = await (await call(id, { name: 'echo', input: { text: 'x' } })).rest();
    expect(JSON.parse(eventsOf(items).at(-1)?.[1] ?? '')).toEqual({
      ok: true,
      output: { blocks: [{ text: 'x', detail: null, type: 'text' }], metadata: null, reward: null, finished: false },
    });
  });

  it('cuts a large result into chunks of at most 4096 characters that never split an emoji and reassemble exactly', async () => {
    t = await startTestServer();
    const id = await t.session();
    const prefix = '{"ok":true,"output":{"blocks":[{"text":"';
    // JSON index i is text index i - prefix.length: the emoji straddles 4095/4096, a space opens the third piece.
    const text = `${'x'.repeat(4095 - prefix.length)}😀${'x'.repeat(8191 - 4097)} ${'x'.repeat(3000)}`;
    const input = { text };
    const expected = JSON.stringify({
      ok: true,
      output: {
        blocks: [{ text: input.text, detail: null, type: 'text' }],
        metadata: null,
        reward: null,
        finished: false,
      },
    });
    expect(expected.slice(4095, 4097)).toBe('😀');
    expect(expected[8191]).toBe(' ');

    const events = eventsOf(await (await call(id, { name: 'echo', input })).rest());
    expect(events.map(([event]) => event)).toEqual(['task_id', 'chunk', 'chunk', 'end']);
    const pieces = events.slice(1).map(([, data]) => data);
    expect(pieces.map((piece) => piece.length)).toEqual([4095, 4096, expected.length - 8191]);
    expect(pieces[1]?.startsWith('😀')).toBe(true);
    expect(pieces[2]?.startsWith(' x')).toBe(true);
    expect(pieces.join('')).toBe(expected);
  });

  it('sends a ping comment with a timestamp every pingIntervalMs while the tool runs', async () => {
    t = await startTestServer({ pingIntervalMs: 20 });
    const id = await t.session();
    const stream = await call(id, { name: 'wait', input: { key: 'slow' } });
    expect((await stream.next())?.kind).toBe('event');
    const pings = [await stream.next(), await stream.next()];
    for (const ping of pings) {
      expect(ping?.kind).toBe('comment');
      expect(ping?.kind === 'comment' ? ping.text.trim() : '').toMatch(
        /^ping - \d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d{6}\+00:00$/,
      );
    }
    expect(stream.raw).toMatch(/\n\n: ping - [^\n]+\n\n: ping - [^\n]+\n\n$/);
    t.probe.release('slow', 'done at last');
    const events = eventsOf(await stream.rest());
    expect(events.at(-1)?.[0]).toBe('end');
    expect(JSON.parse(events.at(-1)?.[1] ?? '')).toMatchObject({ ok: true, output: { reward: 1, finished: true } });
  });

  it('answers end with ok false for an unknown tool, an input the schema rejects, and a ToolFailure', async () => {
    t = await startTestServer();
    const id = await t.session();
    const resultOf = async (body: Record<string, unknown>) => {
      const events = eventsOf(await (await call(id, body)).rest());
      expect(events.map(([event]) => event)).toEqual(['task_id', 'end']);
      return JSON.parse(events[1]?.[1] ?? '') as { ok: boolean; error: string };
    };
    const unknown = await resultOf({ name: 'launch', input: {} });
    expect(unknown.ok).toBe(false);
    expect(unknown.error).toMatch(
      /^"launch" is not a valid tool; the tools of this session are: echo, wait, .*hint\.$/,
    );
    const invalid = await resultOf({ name: 'echo', input: { text: 42 } });
    expect(invalid.ok).toBe(false);
    expect(invalid.error).toMatch(/^Tool input validation error for "echo": .*text/);
    expect(await resultOf({ name: 'refuse', input: {} })).toEqual({
      ok: false,
      error: 'wrong answer format: expected a number',
    });
    expect(t.probe.runs.get('echo')).toBeUndefined();
  });

  it('runs a task-specific tool, and hands a tool without input schema the input as sent', async () => {
    t = await startTestServer();
    const id = await t.session();
    const hint = eventsOf(await (await call(id, { name: 'hint', input: {} })).rest());
    expect(JSON.parse(hint[1]?.[1] ?? '').output.blocks[0].text).toBe('think about What is 1+1?');
    const noop = eventsOf(await (await call(id, { name: 'noop', input: { x: 1 } })).rest());
    expect(JSON.parse(noop[1]?.[1] ?? '').output.blocks[0].text).toBe('got {"x":1}');
  });

  it('answers event error with the message and no end when the tool throws, or returns something that is not a result', async () => {
    t = await startTestServer();
    const id = await t.session();
    const crash = await call(id, { name: 'crash', input: {} });
    await crash.rest();
    expect(crash.raw).toMatch(/^event: task_id\ndata: [0-9a-f]{32}\n\nevent: error\ndata: disk on fire\n\n$/);
    const garbage = eventsOf(await (await call(id, { name: 'garbage', input: {} })).rest());
    expect(garbage.map(([event]) => event)).toEqual(['task_id', 'error']);
    expect(garbage[1]?.[1]).toContain('is not valid ORS output');
    expect(t.logged.map((entry) => entry.message)).toEqual([
      `tool "crash" of session "${id}" (testenv) threw`,
      `tool "garbage" of session "${id}" (testenv) threw`,
    ]);
  });

  it('answers the plain HTTP errors before any stream: 400 without header, 404 unknown or deleted session, 422 extra key, 500 failed setup', async () => {
    t = await startTestServer();
    const id = await t.session();
    const body = { name: 'echo', input: { text: 'x' } };
    expect((await send(t.base, '/testenv/call', { method: 'POST', body })).status).toBe(400);
    expect((await send(t.base, '/testenv/call', { method: 'POST', headers: sid('never'), body })).status).toBe(404);
    const extra = await send(t.base, '/testenv/call', {
      method: 'POST',
      headers: sid(id),
      body: { ...body, stream: true },
    });
    expect(extra.status).toBe(422);
    expect(extra.json()).toEqual({
      detail: [
        { type: 'extra_forbidden', loc: ['body', 'stream'], msg: 'Extra inputs are not permitted', input: true },
      ],
    });
    await send(t.base, '/delete', { method: 'POST', headers: sid(id) });
    expect((await send(t.base, '/testenv/call', { method: 'POST', headers: sid(id), body })).status).toBe(404);
    await send(t.base, '/create', {
      method: 'POST',
      headers: sid('broken'),
      body: { task_spec: { question: 'q', fail_setup: true } },
    });
    expect((await send(t.base, '/testenv/call', { method: 'POST', headers: sid('broken'), body })).status).toBe(500);
    expect(t.probe.runs.get('echo')).toBeUndefined();
  });

  it('ends a running call with event error, and aborts the tool, when its session is deleted', async () => {
    t = await startTestServer();
    const id = await t.session();
    const stream = await call(id, { name: 'wait', input: { key: 'cut' } });
    const signal = await t.probe.started('cut');
    await send(t.base, '/delete', { method: 'POST', headers: sid(id) });
    const events = eventsOf(await stream.rest());
    expect(events.map(([event]) => event)).toEqual(['task_id', 'error']);
    expect(events[1]?.[1]).toBe(`Session deleted: session "${id}" was deleted`);
    expect(signal.aborted).toBe(true);
    expect(await t.probe.ended('cut')).toBe('aborted');
  });
});
