import { afterEach, describe, expect, it } from 'vitest';
import { eventually } from '../../support/eventually.js';
import { openSse, send } from './ors-test-client.js';
import { startTestServer, type TestServer } from './test-server.js';

let t: TestServer;
afterEach(async () => {
  await t.server.close();
});

const sid = (id: string) => ({ 'X-Session-ID': id });

describe('idle sessions', () => {
  it('are reaped after sessionIdleMs without a request: torn down, then answered with 404 saying why', async () => {
    t = await startTestServer({ sessionIdleMs: 30 });
    const id = await t.session();
    await eventually(() => t.server.activeSessionIds().length === 0, 'the session reaped');
    expect(t.probe.teardowns).toEqual([id]);
    const late = await send(t.base, '/testenv/prompt', { headers: sid(id) });
    expect(late.status).toBe(404);
    expect((late.json() as { detail: string }).detail).toMatch(
      /^Session deleted: session ".+" expired after 0\.03 s without activity/,
    );
    expect((await send(t.base, '/ping', { method: 'POST', headers: sid(id) })).status).toBe(404);
  });

  it('are not reaped while a tool of theirs runs, however long since their last request', async () => {
    t = await startTestServer({ sessionIdleMs: 30, pingIntervalMs: 1_000_000 });
    const busy = await t.session();
    const stream = await openSse(t.base, '/testenv/call', {
      headers: sid(busy),
      body: { name: 'wait', input: { key: 'long' } },
    });
    await t.probe.started('long');
    // A session created later, so older-or-equal idleness: any sweep that reaps it would have reaped `busy` too.
    const idle = await t.session({ split: 'train', index: 1 });
    await eventually(() => !t.server.activeSessionIds().includes(idle), 'the idle session reaped');
    expect(t.server.activeSessionIds()).toEqual([busy]);
    t.probe.release('long', 'done');
    expect((await stream.rest()).at(-1)).toMatchObject({ kind: 'event', event: 'end' });
  });
});
