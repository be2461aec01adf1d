import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { methodOf, pathOf, type RouteDeclaration, type RouteKey } from '../../src/http/routes/route.js';
import { ROUTE_TABLE } from '../../src/http/routes/route-table.js';
import { readRecords, startRollout } from '../support/rollout-client.js';
import { startTestBridge, type TestBridge } from '../support/start-test-bridge.js';

const KEY = 'alpha-key-0123456789';
const routes = Object.entries(ROUTE_TABLE) as Array<[RouteKey, RouteDeclaration]>;

/**
 * Who may call each route of the table, checked over HTTP from the declarations alone: a route is
 * open to all, or needs a key (the metrics token on `/metrics`), and takes a stream token in place of
 * a key only where it names the route that issues one (docs/protocol.md §6.5).
 */
describe('who may call each route, as its declaration says', () => {
  let bridge: TestBridge;
  let runId: string;
  let batchId: string;

  beforeAll(async () => {
    bridge = await startTestBridge({ RUNBRIDGE_API_KEYS: KEY }, { apiKey: KEY });
    runId = await bridge.startRun({ env: 'arith' });
    await bridge.readEvents(runId);
    batchId = await startRollout(bridge.fetch, { env: 'arith', tasks: '0', samples: 1, model: 'offline' });
    await readRecords(bridge.fetch, batchId);
  });
  afterAll(() => bridge?.shutdown());

  /** `key`'s path for the run and the batch of this file (an approval and a file that do not exist). */
  const urlOf = (key: RouteKey, query = '') => {
    const id = pathOf(key).startsWith('/v1/rollouts/') ? batchId : runId;
    const path = pathOf(key).replace(/:(\w+)/g, (_, name: string) =>
      name === 'id' ? id : name === 'approval_id' ? 'appr_none' : 'nothing.js',
    );
    return `${bridge.url}${path}${query}`;
  };

  it.each(routes)('%s without credentials: 401 unless it is open to all', async (key, route) => {
    const response = await fetch(urlOf(key), { method: methodOf(key) });
    await response.body?.cancel();
    if (route.access === 'public') expect(response.status).not.toBe(401);
    else expect(response.status).toBe(401);
  });

  it('honours each stream token on the route it was issued for, and on no other route of the table', async () => {
    const takers = routes.filter(([, route]) => route.streamToken !== undefined);
    expect(takers.length).toBeGreaterThan(0);
    for (const [taker, { streamToken: issuer }] of takers) {
      const minted = await bridge.fetch(urlOf(issuer!).slice(bridge.url.length), {
        method: methodOf(issuer!),
        headers: { 'Content-Type': 'application/json' },
      });
      expect(minted.status, issuer).toBe(200);
      const { token } = (await minted.json()) as { token: string };
      for (const [key, route] of routes) {
        const response = await fetch(urlOf(key, `?token=${encodeURIComponent(token)}`), { method: methodOf(key) });
        await response.body?.cancel();
        const what = `a token of ${issuer} on ${key}`;
        if (key === taker) expect(response.status, what).toBe(200);
        else if (route.access !== 'public') expect(response.status, what).toBe(401);
      }
    }
  });

  it('names, on every route that takes a stream token, a POST of the table that issues it', () => {
    for (const [key, route] of routes) {
      if (route.streamToken === undefined) continue;
      expect(Object.keys(ROUTE_TABLE), key).toContain(route.streamToken);
      expect(methodOf(route.streamToken), key).toBe('POST');
    }
  });
});
