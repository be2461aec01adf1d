import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readRecordEvents, readRecords, startRollout } from '../support/rollout-client.js';
import { startTestBridge, type TestBridge } from '../support/start-test-bridge.js';

const ALPHA = 'alpha-key-0123456789';
const BETA = 'beta-key-0123456789a';
const BATCH = { env: 'arith', tasks: '0:3', samples: 1, model: 'offline' };

interface RecordsTokenAnswer {
  token: string;
  expires_at: number;
  records_url: string;
}

/**
 * `POST /v1/rollouts/:id/stream-token` and `?token=` on that batch's records (docs/protocol.md §6.5): the
 * batch's twin of a run's stream token, for a browser EventSource that cannot send a key.
 */
describe("a batch's records stream token", () => {
  let bridge: TestBridge;
  const as = (key: string) => ({ Authorization: `Bearer ${key}` });
  const mint = (id: string, headers: Record<string, string> = as(ALPHA)) =>
    fetch(`${bridge.url}/v1/rollouts/${id}/stream-token`, { method: 'POST', headers });

  beforeAll(async () => {
    bridge = await startTestBridge({ RUNBRIDGE_API_KEYS: `${ALPHA},${BETA}` }, { apiKey: ALPHA });
  });
  afterAll(() => bridge?.shutdown());

  it("opens that batch's records, NDJSON and SSE, without an Authorization header", async () => {
    const id = await startRollout(bridge.fetch, BATCH);
    const minted = await mint(id);
    expect(minted.status).toBe(200);
    expect(minted.headers.get('cache-control')).toBe('no-store');
    const answer = (await minted.json()) as RecordsTokenAnswer;
    expect(answer.records_url).toBe(`/v1/rollouts/${id}/records?token=${encodeURIComponent(answer.token)}`);
    expect(answer.expires_at * 1000).toBeGreaterThan(Date.now());
    const withKey = await readRecords(bridge.fetch, id);
    const tokenFetch = (path: string, init?: RequestInit) => fetch(`${bridge.url}${path}`, init);
    const query = answer.records_url.slice(answer.records_url.indexOf('?'));
    expect(await readRecords(tokenFetch, id, query)).toEqual(withKey);
    const events = await readRecordEvents(tokenFetch, id, {}, query);
    expect(events.filter((event) => event.event === undefined).map((event) => JSON.parse(event.data))).toEqual(withKey);
    expect(events.at(-1)).toMatchObject({ event: 'end' });
  });

  it("is refused on another batch's records, and a run's token on a batch, and a batch's token on a run", async () => {
    const mine = await startRollout(bridge.fetch, BATCH);
    const other = await startRollout(bridge.fetch, BATCH);
    const runId = await bridge.startRun({ env: 'arith' });
    const batchMinted = await mint(mine);
    expect(batchMinted.status).toBe(200);
    const { token: batchToken } = (await batchMinted.json()) as RecordsTokenAnswer;
    const runMinted = await bridge.fetch(`/v1/runs/${runId}/stream-token`, { method: 'POST' });
    expect(runMinted.status).toBe(200);
    const { token: runToken } = (await runMinted.json()) as { token: string };
    const refused = async (path: string, token: string) => {
      const response = await fetch(`${bridge.url}${path}?token=${encodeURIComponent(token)}`);
      expect(response.status, path).toBe(401);
      expect(await response.json()).toMatchObject({ error: { code: 'unauthorized' } });
    };
    await refused(`/v1/rollouts/${other}/records`, batchToken);
    await refused(`/v1/rollouts/${mine}/records`, runToken);
    await refused(`/v1/runs/${runId}/events`, batchToken);
    // The same id in the other kind's path is another stream: a token names its stream, not an id.
    await refused(`/v1/runs/${mine}/events`, batchToken);
    await refused(`/v1/rollouts/${runId}/records`, runToken);
    await Promise.all([readRecords(bridge.fetch, mine), readRecords(bridge.fetch, other), bridge.readEvents(runId)]);
  });

  it("is not issued for another key's batch, nor without a key, nor with a body that has keys", async () => {
    const id = await startRollout(bridge.fetch, BATCH);
    const foreign = await mint(id, as(BETA));
    expect(foreign.status).toBe(404);
    expect(await foreign.json()).toMatchObject({ error: { code: 'rollout_not_found' } });
    expect((await mint(id, {})).status).toBe(401);
    expect((await mint('ro_doesnotexist')).status).toBe(404);
    const withBody = await fetch(`${bridge.url}/v1/rollouts/${id}/stream-token`, {
      method: 'POST',
      headers: { ...as(ALPHA), 'Content-Type': 'application/json' },
      body: '{"ttl":99999}',
    });
    expect(withBody.status).toBe(400);
    await readRecords(bridge.fetch, id);
  });
});
