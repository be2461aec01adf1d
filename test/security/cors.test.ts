import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../src/config/index.js';
import { startTestBridge, type TestBridge, useTestBridge } from '../support/start-test-bridge.js';

const APP = 'https://app.example';
const OTHER = 'https://evil.example';
const CORS_HEADERS = [
  'access-control-allow-origin',
  'access-control-allow-methods',
  'access-control-allow-headers',
  'access-control-expose-headers',
  'access-control-allow-credentials',
  'access-control-max-age',
];

function corsHeadersOf(response: Response): Record<string, string> {
  const found: Record<string, string> = {};
  for (const name of CORS_HEADERS) {
    const value = response.headers.get(name);
    if (value !== null) found[name] = value;
  }
  return found;
}

/** A preflight as a browser sends it before `fetch(url, {headers: {Authorization, 'Last-Event-ID'}})`. */
function preflight(bridge: TestBridge, path: string, origin: string): Promise<Response> {
  return fetch(`${bridge.url}${path}`, {
    method: 'OPTIONS',
    headers: {
      Origin: origin,
      'Access-Control-Request-Method': 'GET',
      'Access-Control-Request-Headers': 'authorization,last-event-id',
    },
  });
}

describe('CORS, off by default', () => {
  const bridge = useTestBridge();

  it('sends no CORS header on any answer, preflights included', async () => {
    const runId = await bridge.startRun({ env: 'arith' });
    const answers = [
      await bridge.fetch('/health', { headers: { Origin: APP } }),
      await bridge.fetch(`/v1/runs/${runId}`, { headers: { Origin: APP } }),
      await bridge.fetch(`/v1/runs/${runId}/events`, { headers: { Origin: APP } }),
      await bridge.fetch('/v1/runs/run_nope', { headers: { Origin: APP } }),
      await preflight(bridge, `/v1/runs/${runId}/events`, APP),
    ];
    for (const response of answers) {
      expect(corsHeadersOf(response), response.url).toEqual({});
      await response.arrayBuffer();
    }
    expect(answers[4]!.status).toBeGreaterThanOrEqual(400);
  });
});

describe('CORS with an allowlist', () => {
  const bridge = useTestBridge(
    { RUNBRIDGE_CORS_ORIGINS: `${APP}/, http://localhost:5173`, RUNBRIDGE_API_KEYS: 'alpha-key-0123456789' },
    { apiKey: 'alpha-key-0123456789' },
  );
  const auth = { Authorization: 'Bearer alpha-key-0123456789' };

  it("answers a listed origin's preflight for the events stream, allowing Authorization and Last-Event-ID", async () => {
    const runId = await bridge.startRun({ env: 'arith' });
    const response = await preflight(bridge, `/v1/runs/${runId}/events`, APP);
    expect(response.status).toBe(204);
    expect(response.headers.get('access-control-allow-origin')).toBe(APP);
    expect(response.headers.get('access-control-allow-methods')).toContain('GET');
    const allowed = (response.headers.get('access-control-allow-headers') ?? '').toLowerCase().split(',');
    expect(allowed).toEqual(
      expect.arrayContaining(['authorization', 'last-event-id', 'content-type', 'idempotency-key']),
    );
    expect(response.headers.get('access-control-allow-credentials')).toBeNull();
    expect(response.headers.get('vary')).toContain('Origin');
    await bridge.readEvents(runId);
  });

  it('puts the headers on the SSE response, exposing x-run-id', async () => {
    const runId = await bridge.startRun({ env: 'arith' });
    const response = await fetch(`${bridge.url}/v1/runs/${runId}/events`, { headers: { ...auth, Origin: APP } });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('text/event-stream; charset=utf-8');
    expect(response.headers.get('access-control-allow-origin')).toBe(APP);
    expect((response.headers.get('access-control-expose-headers') ?? '').toLowerCase().split(',')).toEqual(
      expect.arrayContaining(['x-run-id', 'location', 'retry-after']),
    );
    expect(response.headers.get('vary')).toContain('Origin');
    expect(await response.text()).toContain('event: run.');
  });

  it('puts them on JSON answers and on error answers, so a page can read why it failed', async () => {
    const origin = 'http://localhost:5173';
    const created = await fetch(`${bridge.url}/v1/runs`, {
      method: 'POST',
      headers: { ...auth, Origin: origin, 'Content-Type': 'application/json' },
      body: '{}',
    });
    expect(created.status).toBe(202);
    expect(created.headers.get('access-control-allow-origin')).toBe(origin);
    const { run_id: runId } = (await created.json()) as { run_id: string };
    for (const [path, headers, status] of [
      ['/v1/runs/run_nope', auth, 404],
      [`/v1/runs/${runId}`, {}, 401],
      ['/v1/runs?limit=0', auth, 400],
    ] as const) {
      const response = await fetch(`${bridge.url}${path}`, { headers: { ...headers, Origin: origin } });
      expect(response.status).toBe(status);
      expect(response.headers.get('access-control-allow-origin')).toBe(origin);
      expect(await response.json()).toHaveProperty('error.code');
    }
    await bridge.readEvents(runId);
  });

  it('gives an unlisted origin no CORS header, so the browser withholds the answer', async () => {
    const runId = await bridge.startRun({ env: 'arith' });
    const simple = await fetch(`${bridge.url}/v1/runs/${runId}`, { headers: { ...auth, Origin: OTHER } });
    expect(corsHeadersOf(simple)).toEqual({});
    await simple.arrayBuffer();
    const stream = await fetch(`${bridge.url}/v1/runs/${runId}/events`, { headers: { ...auth, Origin: OTHER } });
    expect(corsHeadersOf(stream)).toEqual({});
    await stream.arrayBuffer();
    const pre = await preflight(bridge, `/v1/runs/${runId}/events`, OTHER);
    expect(corsHeadersOf(pre)).toEqual({});
    expect(pre.status).toBe(401);
    await pre.arrayBuffer();
    // A listed origin with another scheme or port is another origin.
    for (const near of ['http://app.example', 'https://app.example:8443', 'https://app.example.evil.example']) {
      const response = await fetch(`${bridge.url}/health`, { headers: { Origin: near } });
      expect(response.headers.get('access-control-allow-origin'), near).toBeNull();
      await response.arrayBuffer();
    }
  });
});

describe('CORS with "*"', () => {
  const KEY = 'star-key-0123456789';

  it('is refused at start-up without API keys, saying that any page could then read and start runs', async () => {
    for (const origins of ['*', `${APP}, *`]) {
      const starting = startTestBridge({ RUNBRIDGE_CORS_ORIGINS: origins });
      await expect(starting).rejects.toBeInstanceOf(ConfigError);
      await expect(starting).rejects.toThrow(
        /RUNBRIDGE_CORS_ORIGINS=\* without RUNBRIDGE_API_KEYS would let a page on any origin read and start runs/,
      );
    }
  });

  it('allows any origin with keys, never with credentials, and the key still guards every route', async () => {
    const bridge = await startTestBridge({ RUNBRIDGE_CORS_ORIGINS: '*', RUNBRIDGE_API_KEYS: KEY }, { apiKey: KEY });
    try {
      const runId = await bridge.startRun({ env: 'arith' });
      const response = await bridge.fetch(`/v1/runs/${runId}/events`, { headers: { Origin: OTHER, Cookie: 'a=b' } });
      expect(response.headers.get('access-control-allow-origin')).toBe('*');
      expect(response.headers.get('access-control-allow-credentials')).toBeNull();
      await response.text();
      const pre = await preflight(bridge, `/v1/runs/${runId}/events`, OTHER);
      expect(pre.headers.get('access-control-allow-origin')).toBe('*');
      expect(pre.headers.get('access-control-allow-credentials')).toBeNull();
      await pre.arrayBuffer();
      const keyless = await fetch(`${bridge.url}/v1/runs`, { headers: { Origin: OTHER } });
      expect(keyless.status).toBe(401);
      expect(keyless.headers.get('access-control-allow-origin')).toBe('*');
      await keyless.arrayBuffer();
    } finally {
      await bridge.shutdown();
    }
  });
});
