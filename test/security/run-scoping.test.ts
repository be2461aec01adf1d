import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { builtinEnvironments } from '../../adapters/environments/builtin-environments.js';
import { probeEnvironment } from '../support/probe-environment.js';
import { scriptedProvider } from '../support/scripted-model.js';
import { startTestBridge, type TestBridge } from '../support/start-test-bridge.js';

/**
 * Runs belong to the key that made them (docs/protocol.md §6, "Auth"): for any other key a run does not
 * exist — 404 on every route, nothing changed by its cancel or delete, absent from its lists — and
 * an Idempotency-Key is that key's alone.
 */

const ALPHA = { Authorization: 'Bearer alpha-key-0123456789' };
const BETA = { Authorization: 'Bearer beta-key-0123456789a' };
const JSON_BODY = { 'Content-Type': 'application/json' };

describe('runs scoped to their key', () => {
  let bridge: TestBridge;
  let live: string;
  let done: string;

  beforeAll(async () => {
    bridge = await startTestBridge(
      {
        RUNBRIDGE_API_KEYS: 'alpha-key-0123456789,beta-key-0123456789a',
        RUNBRIDGE_DEFAULT_ENV: 'probe',
        RUNBRIDGE_SHUTDOWN_GRACE_SECONDS: '0.1',
      },
      {
        apiKey: 'alpha-key-0123456789',
        environments: [probeEnvironment, ...builtinEnvironments],
        providers: [scriptedProvider({ stuck: [{ hang: true }] })],
      },
    );
    live = await bridge.startRun({ model: 'scripted:stuck' });
    done = await bridge.startRun({ model: 'offline', env: 'arith' });
    await bridge.readEvents(done);
  });
  afterAll(() => bridge.shutdown());

  it('answers 404 with the same body as for a run that never existed, on every route', async () => {
    const routes = (id: string): Array<[string, string, RequestInit?]> => [
      ['GET', `/v1/runs/${id}`],
      ['GET', `/v1/runs/${id}/events`],
      ['GET', `/v1/runs/${id}/events?after=0`, { headers: { Accept: 'application/json' } }],
      ['POST', `/v1/runs/${id}/cancel`],
      ['POST', `/v1/runs/${id}/stream-token`],
      ['DELETE', `/v1/runs/${id}`],
    ];
    for (const id of [live, done]) {
      for (const [method, path, init] of routes(id)) {
        const foreign = await fetch(`${bridge.url}${path}`, {
          ...init,
          method,
          headers: { ...(init?.headers as Record<string, string>), ...BETA },
        });
        const missing = await fetch(`${bridge.url}${path.replace(id, 'run_000000000000000000000000')}`, {
          ...init,
          method,
          headers: { ...(init?.headers as Record<string, string>), ...BETA },
        });
        expect(foreign.status, `${method} ${path}`).toBe(404);
        const body = (await foreign.json()) as { error: { code: string; message: string } };
        const other = (await missing.json()) as { error: { code: string; message: string } };
        expect(body.error.code).toBe(other.error.code);
        expect(body.error.message.replace(id, '<id>')).toBe(
          other.error.message.replace('run_000000000000000000000000', '<id>'),
        );
      }
    }
  });

  it('changes nothing when another key cancels or deletes', async () => {
    await fetch(`${bridge.url}/v1/runs/${live}/cancel`, { method: 'POST', headers: BETA });
    await fetch(`${bridge.url}/v1/runs/${done}`, { method: 'DELETE', headers: BETA });
    const snapshot = (await (await fetch(`${bridge.url}/v1/runs/${live}`, { headers: ALPHA })).json()) as {
      status: string;
    };
    expect(snapshot.status).toBe('running');
    expect((await fetch(`${bridge.url}/v1/runs/${done}`, { headers: ALPHA })).status).toBe(200);
  });

  it("lists only the caller's runs, whatever the filter or cursor", async () => {
    for (const query of ['', '?status=running', '?status=completed', '?limit=100']) {
      const list = (await (await fetch(`${bridge.url}/v1/runs${query}`, { headers: BETA })).json()) as {
        data: unknown[];
      };
      expect(list.data, query).toEqual([]);
    }
    // Another key's run as a cursor is answered exactly like a run that never existed.
    const cursors = await Promise.all(
      [live, 'run_neverexisted'].map(async (id) => {
        const response = await fetch(`${bridge.url}/v1/runs?after=${id}`, { headers: BETA });
        const body = (await response.json()) as { error: { code: string; message: string } };
        return { status: response.status, code: body.error.code, message: body.error.message.replace(id, '<id>') };
      }),
    );
    expect(cursors[0]).toMatchObject({ status: 400, code: 'invalid_cursor' });
    expect(cursors[0]).toEqual(cursors[1]);
    const mine = (await (await fetch(`${bridge.url}/v1/runs?limit=100`, { headers: ALPHA })).json()) as {
      data: Array<{ run_id: string }>;
    };
    expect(mine.data.map((run) => run.run_id).sort()).toEqual([live, done].sort());
  });

  it('keeps Idempotency-Keys apart: the same key from another caller starts its own run', async () => {
    const post = (headers: Record<string, string>) =>
      fetch(`${bridge.url}/v1/runs`, {
        method: 'POST',
        headers: { ...headers, ...JSON_BODY, 'Idempotency-Key': 'shared-key' },
        body: JSON.stringify({ env: 'arith', model: 'offline' }),
      });
    const first = await post(ALPHA);
    const second = await post(BETA);
    expect(first.status).toBe(202);
    expect(second.status).toBe(202);
    const [a, b] = [
      ((await first.json()) as { run_id: string }).run_id,
      ((await second.json()) as { run_id: string }).run_id,
    ];
    expect(a).not.toBe(b);
    expect((await fetch(`${bridge.url}/v1/runs/${b}`, { headers: ALPHA })).status).toBe(404);
    await bridge.readEvents(a);
    await fetch(`${bridge.url}/v1/runs/${b}/events`, { headers: BETA }).then((response) => response.text());
  });

  it('lets the owner cancel its live run', async () => {
    expect((await fetch(`${bridge.url}/v1/runs/${live}/cancel`, { method: 'POST', headers: ALPHA })).status).toBe(202);
    expect((await bridge.readEvents(live)).at(-1)).toMatchObject({ event: 'run.cancelled', reason: 'client' });
  });
});
