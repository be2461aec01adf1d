import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestBridge, type TestBridge, useTestBridge } from '../support/start-test-bridge.js';

/** One raw HTTP exchange, so the test controls `Host` (fetch will not let it). */
function exchange(
  url: string,
  options: { method?: string; path: string; headers?: Record<string, string>; body?: string },
): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const { hostname, port } = new URL(url);
    const req = request(
      { hostname, port, method: options.method ?? 'GET', path: options.path, headers: options.headers },
      (res) => {
        let body = '';
        res.setEncoding('utf8').on('data', (text: string) => (body += text));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
      },
    );
    req.on('error', reject);
    req.end(options.body);
  });
}

/**
 * Without API keys, other web pages are the attackers left (docs/security.md): a page that rebinds
 * its own name to 127.0.0.1 sends its name as `Host`, and a page that posts a form cannot send a
 * JSON content type. Both are refused before anything else is looked at.
 */
describe('a bridge without API keys', () => {
  let bridge: TestBridge;
  let port: string;

  beforeAll(async () => {
    bridge = await startTestBridge();
    port = new URL(bridge.url).port;
  });
  afterAll(() => bridge.shutdown());

  it('refuses a Host that is not a loopback name, on every route (DNS rebinding)', async () => {
    for (const host of [
      `evil.example:${port}`,
      'evil.example',
      `127.0.0.1.evil.example:${port}`,
      `localhost.:${port}`,
    ]) {
      for (const path of ['/health', '/v1/runs', '/v1/models']) {
        const answer = await exchange(bridge.url, { path, headers: { Host: host } });
        expect(answer.status, `${host} ${path}`).toBe(403);
        expect(JSON.parse(answer.body)).toMatchObject({ error: { code: 'host_not_allowed' } });
      }
    }
    const before = bridge.registry.stats();
    const post = await exchange(bridge.url, {
      method: 'POST',
      path: '/v1/runs',
      headers: { Host: 'evil.example', 'Content-Type': 'application/json' },
      body: '{}',
    });
    expect(post.status).toBe(403);
    expect(bridge.registry.stats()).toEqual(before);
  });

  it('serves loopback names with any port', async () => {
    for (const host of [`127.0.0.1:${port}`, `localhost:${port}`, 'LOCALHOST', `[::1]:${port}`, '127.1.2.3']) {
      expect((await exchange(bridge.url, { path: '/health', headers: { Host: host } })).status, host).toBe(200);
    }
  });

  it('refuses a POST without a JSON content type, an empty body included, and starts or cancels nothing (CSRF)', async () => {
    const before = bridge.registry.stats();
    for (const headers of <Array<Record<string, string>>>[
      {},
      { 'Content-Type': 'text/plain' },
      { 'Content-Type': 'application/x-www-form-urlencoded' },
    ]) {
      for (const body of ['', '{}']) {
        const answer = await bridge.fetch('/v1/runs', { method: 'POST', headers, body });
        expect(answer.status, JSON.stringify({ headers, body })).toBe(415);
        expect(await answer.json()).toMatchObject({
          error: { code: 'unsupported_media_type', message: expect.stringContaining('CSRF') },
        });
      }
    }
    expect(bridge.registry.stats()).toEqual(before);

    const runId = await bridge.startRun({ env: 'arith' });
    const cancel = await bridge.fetch(`/v1/runs/${runId}/cancel`, {
      method: 'POST',
      headers: { 'Content-Type': 'text/plain' },
    });
    expect(cancel.status).toBe(415);
    expect((await bridge.readEvents(runId)).at(-1)?.event).toBe('run.completed');
    const chat = await bridge.fetch('/v1/chat/completions', { method: 'POST', body: '' });
    expect(chat.status).toBe(415);
  });

  it('names the header to send and what came instead, in words curl takes', async () => {
    const runId = await bridge.startRun({ env: 'arith' });
    const bare = await bridge.fetch(`/v1/runs/${runId}/cancel`, { method: 'POST' });
    expect(bare.status).toBe(415);
    expect(((await bare.json()) as { error: { message: string } }).error.message).toBe(
      'This POST came without a Content-Type header. Send every POST with the header ' +
        `"Content-Type: application/json" (curl: -H 'Content-Type: application/json'), an empty body included: ` +
        'without API keys that is what keeps other web pages from posting here (CSRF).',
    );
    const typed = await bridge.fetch(`/v1/runs/${runId}/cancel`, {
      method: 'POST',
      headers: { 'Content-Type': 'text/plain' },
    });
    expect(((await typed.json()) as { error: { message: string } }).error.message).toMatch(
      /^This POST came with "Content-Type: text\/plain"\. Send every POST with the header "Content-Type: application\/json"/,
    );
    await bridge.readEvents(runId);
  });

  it('takes an empty POST sent as JSON, as the docs promise', async () => {
    const answer = await bridge.fetch('/v1/runs', { method: 'POST', headers: { 'Content-Type': 'application/json' } });
    expect(answer.status).toBe(202);
    await bridge.readEvents(((await answer.json()) as { run_id: string }).run_id);
  });
});

describe('a bridge with API keys', () => {
  const bridge = useTestBridge({ RUNBRIDGE_API_KEYS: 'k1-0123456789abcdef' }, { apiKey: 'k1-0123456789abcdef' });

  it('serves any Host and an empty POST of any type: the key is what guards it', async () => {
    const health = await exchange(bridge.url, { path: '/health', headers: { Host: 'bridge.example.com' } });
    expect(health.status).toBe(200);
    const answer = await bridge.fetch('/v1/runs', { method: 'POST', headers: { 'Content-Type': 'text/plain' } });
    expect(answer.status).toBe(202);
    await bridge.readEvents(((await answer.json()) as { run_id: string }).run_id);
  });
});
