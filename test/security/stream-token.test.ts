import { createHash } from 'node:crypto';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Authenticator } from '../../src/http/authenticate.js';
import { StreamTokens } from '../../src/http/stream-token.js';
import type { RunEvent } from '../../src/protocol/run-events.js';
import { assertEventOrder } from '../../src/protocol/verify-event-order.js';
import { eventually } from '../support/eventually.js';
import { runEventsOf } from '../support/run-events-of.js';
import { startTestBridge, type TestBridge } from '../support/start-test-bridge.js';

/** Without keys every POST needs it, an empty body included. */
const JSON_TYPE = { 'Content-Type': 'application/json' };

interface TokenAnswer {
  token: string;
  expires_at: number;
  events_url: string;
}

async function eventsOf(response: Response): Promise<RunEvent[]> {
  expect(response.status).toBe(200);
  return runEventsOf(response.body!);
}

describe('stream tokens', () => {
  it('verify for the run they were issued for and name its owner', () => {
    const tokens = new StreamTokens({ ttlMs: 60_000 });
    const { token } = tokens.issue('run_a', 'key_0123456789abcdef');
    expect(tokens.verify(token, 'run_a')).toBe('key_0123456789abcdef');
  });

  it('do not verify for another run, after their expiry, or in another process', () => {
    let now = 1_000_000;
    const tokens = new StreamTokens({ ttlMs: 60_000, now: () => now });
    const { token, expiresAt } = tokens.issue('run_a', 'local');
    expect(expiresAt).toBeGreaterThanOrEqual(now + 60_000);
    expect(tokens.verify(token, 'run_b')).toBeUndefined();
    expect(new StreamTokens({ ttlMs: 60_000, now: () => now }).verify(token, 'run_a')).toBeUndefined();
    now = expiresAt - 1;
    expect(tokens.verify(token, 'run_a')).toBe('local');
    now = expiresAt;
    expect(tokens.verify(token, 'run_a')).toBeUndefined();
  });

  it('do not verify once any character is changed, dropped or added', () => {
    const tokens = new StreamTokens({ ttlMs: 60_000 });
    const { token } = tokens.issue('run_a', 'key_0123456789abcdef');
    const alphabet = 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-.';
    fc.assert(
      fc.property(
        fc.nat(token.length - 1),
        fc.constantFrom(...alphabet),
        fc.constantFrom('replace', 'drop', 'insert'),
        (at, char, edit) => {
          const changed =
            edit === 'replace'
              ? token.slice(0, at) + char + token.slice(at + 1)
              : edit === 'drop'
                ? token.slice(0, at) + token.slice(at + 1)
                : token.slice(0, at) + char + token.slice(at);
          fc.pre(changed !== token);
          expect(tokens.verify(changed, 'run_a')).toBeUndefined();
        },
      ),
      { numRuns: 2000 },
    );
  });

  it('carry neither the owner id nor anything derived from the API key behind it', () => {
    const key = 'weak-key';
    const owner = new Authenticator([key]).authenticate(`Bearer ${key}`);
    const digest = createHash('sha256').update(key).digest();
    const tokens = new StreamTokens({ ttlMs: 60_000 });
    const { token } = tokens.issue('run_a', owner);
    expect(tokens.verify(token, 'run_a')).toBe(owner);
    const [, , sealed] = token.split('.');
    const bytes = Buffer.from(sealed!, 'base64url');
    for (const part of [Buffer.from(owner), Buffer.from(owner.replace(/^key_/, ''), 'hex'), digest.subarray(0, 4)]) {
      expect(bytes.includes(part), `the token holds ${part.toString('hex')}`).toBe(false);
    }
    expect(token).not.toContain(owner);
    expect(token).not.toContain(Buffer.from(owner).toString('base64url').slice(0, 8));
    // Two tokens for the same run and owner share nothing an observer could link to the key.
    expect(tokens.issue('run_a', owner).token).not.toBe(token);
  });

  it('turn no arbitrary string into an owner', () => {
    const tokens = new StreamTokens({ ttlMs: 60_000 });
    fc.assert(
      fc.property(fc.oneof(fc.string(), fc.stringMatching(/^st2\.\d{1,12}\.[A-Za-z0-9_-]{40,80}$/)), (text) => {
        expect(tokens.verify(text, 'run_a')).toBeUndefined();
      }),
      { numRuns: 2000 },
    );
  });
});

describe('POST /v1/runs/:id/stream-token and ?token= on the events route', () => {
  let bridge: TestBridge;
  const alpha = { Authorization: 'Bearer alpha-key-0123456789' };
  const beta = { Authorization: 'Bearer beta-key-0123456789a' };

  beforeAll(async () => {
    bridge = await startTestBridge(
      { RUNBRIDGE_API_KEYS: 'alpha-key-0123456789,beta-key-0123456789a', RUNBRIDGE_STREAM_TOKEN_TTL_SECONDS: '60' },
      { apiKey: 'alpha-key-0123456789' },
    );
  });
  afterAll(() => bridge.shutdown());

  const mint = async (runId: string, headers: Record<string, string> = alpha): Promise<Response> =>
    fetch(`${bridge.url}/v1/runs/${runId}/stream-token`, { method: 'POST', headers });

  it("opens the run's whole event stream without an Authorization header", async () => {
    const runId = await bridge.startRun({ env: 'arith' });
    const minted = await mint(runId);
    expect(minted.status).toBe(200);
    expect(minted.headers.get('cache-control')).toBe('no-store');
    const answer = (await minted.json()) as TokenAnswer;
    expect(answer.events_url).toBe(`/v1/runs/${runId}/events?token=${encodeURIComponent(answer.token)}`);
    expect(answer.expires_at * 1000).toBeGreaterThan(Date.now() + 50_000);
    const events = await eventsOf(await fetch(`${bridge.url}${answer.events_url}`));
    assertEventOrder(events);
    expect(events).toEqual(await bridge.readEvents(runId));
  });

  it('resumes with Last-Event-ID and serves the JSON page too', async () => {
    const runId = await bridge.startRun({ env: 'arith' });
    const whole = await bridge.readEvents(runId);
    const { events_url: url } = (await (await mint(runId)).json()) as TokenAnswer;
    expect(await eventsOf(await fetch(`${bridge.url}${url}`, { headers: { 'Last-Event-ID': '4' } }))).toEqual(
      whole.slice(5),
    );
    const page = (await (
      await fetch(`${bridge.url}${url}&after=1&limit=2`, { headers: { Accept: 'application/json' } })
    ).json()) as { data: RunEvent[] };
    expect(page.data).toEqual(whole.slice(2, 4));
  });

  it('is refused on another run, even one of the same key', async () => {
    const mine = await bridge.startRun({ env: 'arith' });
    const other = await bridge.startRun({ env: 'arith' });
    const { token } = (await (await mint(mine)).json()) as TokenAnswer;
    const response = await fetch(`${bridge.url}/v1/runs/${other}/events?token=${encodeURIComponent(token)}`);
    expect(response.status).toBe(401);
    expect(await response.json()).toMatchObject({
      error: { code: 'unauthorized', message: expect.stringContaining('stream-token') },
    });
    await Promise.all([bridge.readEvents(mine), bridge.readEvents(other)]);
  });

  it('grants nothing on any other route', async () => {
    const runId = await bridge.startRun({ env: 'arith' });
    await bridge.readEvents(runId);
    const { token } = (await (await mint(runId)).json()) as TokenAnswer;
    const query = `?token=${encodeURIComponent(token)}`;
    for (const [method, path] of [
      ['GET', `/v1/runs/${runId}`],
      ['GET', '/v1/runs'],
      ['POST', `/v1/runs/${runId}/cancel`],
      ['POST', `/v1/runs/${runId}/stream-token`],
      ['DELETE', `/v1/runs/${runId}`],
      ['POST', '/v1/runs'],
      ['GET', '/v1/models'],
      ['POST', `/v1/runs/${runId}/events`],
    ] as const) {
      const response = await fetch(`${bridge.url}${path}${query}`, { method });
      expect(response.status, `${method} ${path}`).toBe(401);
    }
    expect((await bridge.fetch(`/v1/runs/${runId}`)).status).toBe(200);
  });

  it("is not issued for another key's run, nor without a key", async () => {
    const runId = await bridge.startRun({ env: 'arith' });
    const foreign = await mint(runId, beta);
    expect(foreign.status).toBe(404);
    expect(await foreign.json()).toMatchObject({ error: { code: 'run_not_found' } });
    expect((await mint(runId, {})).status).toBe(401);
    expect((await mint('run_doesnotexist')).status).toBe(404);
    await bridge.readEvents(runId);
  });

  it('refuses malformed, repeated and forged tokens', async () => {
    const runId = await bridge.startRun({ env: 'arith' });
    const { token } = (await (await mint(runId)).json()) as TokenAnswer;
    const forged = `${token.slice(0, -2)}${token.endsWith('AA') ? 'BB' : 'AA'}`;
    const [version, expiry, sealed] = token.split('.');
    const longer = `${version}.${Number(expiry) + 3600}.${sealed}`;
    const older = `st1.${expiry}.${Buffer.from('key_ffffffffffffffff').toString('base64url')}.${'A'.repeat(43)}`;
    for (const query of [
      `token=${forged}`,
      `token=${longer}`,
      `token=${older}`,
      'token=',
      'token=x',
      `token=${token}&token=${token}`,
    ]) {
      const response = await fetch(`${bridge.url}/v1/runs/${runId}/events?${query}`);
      expect(response.status, query).toBe(401);
    }
    await bridge.readEvents(runId);
  });

  it('lets a bearer key win over a token, and answers 401 to a bad key even with a good token', async () => {
    const runId = await bridge.startRun({ env: 'arith' });
    const { events_url: url } = (await (await mint(runId)).json()) as TokenAnswer;
    expect((await fetch(`${bridge.url}${url}`, { headers: beta })).status).toBe(404);
    expect((await fetch(`${bridge.url}${url}`, { headers: { Authorization: 'Bearer gamma' } })).status).toBe(401);
    await bridge.readEvents(runId);
  });

  it('rejects a body with unknown keys', async () => {
    const runId = await bridge.startRun({ env: 'arith' });
    const response = await fetch(`${bridge.url}/v1/runs/${runId}/stream-token`, {
      method: 'POST',
      headers: { ...alpha, 'Content-Type': 'application/json' },
      body: '{"ttl":99999}',
    });
    expect(response.status).toBe(400);
    expect(await response.json()).toMatchObject({ error: { code: 'invalid_request' } });
    await bridge.readEvents(runId);
  });
});

describe('stream token expiry over HTTP', () => {
  it('stops opening streams once expired, and a new token opens the rest with ?after=', async () => {
    const bridge = await startTestBridge({ RUNBRIDGE_STREAM_TOKEN_TTL_SECONDS: '0.001' });
    try {
      const runId = await bridge.startRun({ env: 'arith' });
      const whole = await bridge.readEvents(runId);
      const old = (await (
        await bridge.fetch(`/v1/runs/${runId}/stream-token`, { method: 'POST', headers: JSON_TYPE })
      ).json()) as TokenAnswer;
      // Tokens expire on whole seconds; wait for the clock, not for a fixed time.
      await eventually(() => Date.now() >= old.expires_at * 1000, 'the expiry of the token', { intervalMs: 20 });
      const refused = await fetch(`${bridge.url}${old.events_url}`);
      expect(refused.status).toBe(401);
      const fresh = (await (
        await bridge.fetch(`/v1/runs/${runId}/stream-token`, { method: 'POST', headers: JSON_TYPE })
      ).json()) as TokenAnswer;
      expect(await eventsOf(await fetch(`${bridge.url}${fresh.events_url}&after=3`))).toEqual(whole.slice(4));
    } finally {
      await bridge.shutdown();
    }
  });
});
