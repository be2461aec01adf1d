import { afterEach, describe, expect, it } from 'vitest';
import { openSse, send } from './ors-test-client.js';
import { startTestServer, type TestServer } from './test-server.js';

let t: TestServer;
afterEach(async () => {
  await t.server.close();
});

const sid = (id: string) => ({ 'X-Session-ID': id });
const create = (id: string, body: Record<string, unknown> = { env_name: 'testenv', split: 'train', index: 0 }) =>
  send(t.base, '/create', { method: 'POST', headers: sid(id), body });

/** The caps of the ORS server framework (docs/ors.md): sessions held at once, bytes each may receive. */
describe('the caps of the ORS server', () => {
  it('answers /create past maxSessions with 429 and Retry-After, and takes one again once a session ends', async () => {
    t = await startTestServer({ maxSessions: 2 });
    expect((await create('a')).status).toBe(200);
    expect((await create('b')).status).toBe(200);
    const refused = await create('c');
    expect(refused.status).toBe(429);
    expect(refused.headers['retry-after']).toBe('5');
    expect((refused.json() as { detail: string }).detail).toMatch(
      /already holds 2 sessions, its limit \(maxSessions\)/,
    );
    expect(t.server.activeSessionIds()).toEqual(['a', 'b']);
    await send(t.base, '/delete', { method: 'POST', headers: sid('a') });
    expect((await create('c')).status).toBe(200);
  });

  it('answers 413 to a request that would take a session past maxSessionBytes, counting nothing of it', async () => {
    t = await startTestServer({ maxSessionBytes: 2000 });
    const id = await t.session();
    const call = (text: string) =>
      openSse(t.base, '/testenv/call', { headers: sid(id), body: { name: 'echo', input: { text } } });
    const big = await call('x'.repeat(1200));
    expect(big.status).toBe(200);
    expect((await big.rest()).at(-1)).toMatchObject({ kind: 'event', event: 'end' });
    const refused = await call('y'.repeat(1200));
    expect(refused.status).toBe(413);
    await refused.rest();
    expect(t.probe.runs.get('echo')).toBe(1);
    // The refused bytes were not counted: a small call still fits.
    const small = await call('z');
    expect(small.status).toBe(200);
    expect((await small.rest()).at(-1)).toMatchObject({ kind: 'event', event: 'end' });
    // A /create body alone past the limit is refused before its setup runs.
    const setupsBefore = t.probe.setups.length;
    const huge = await create('huge', { env_name: 'testenv', task_spec: { question: 'q'.repeat(3000) } });
    expect(huge.status).toBe(413);
    expect(t.probe.setups.length).toBe(setupsBefore);
    expect(t.server.activeSessionIds()).not.toContain('huge');
  });
});
