import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ChatCompletionRequestSchema } from '../../src/protocol/chat-completion-request.js';
import { RunRequestSchema } from '../../src/protocol/run-request.js';
import { ScriptedOrsServer } from '../support/scripted-ors-server.js';
import { startTestBridge, type TestBridge } from '../support/start-test-bridge.js';

/**
 * The ORS server a run talks to is fixed by configuration (docs/protocol.md §6): a URL put into any field
 * of a request — every field of both request schemas, in every shape, plus headers and query
 * strings — never makes the bridge contact another server. A listening "other" ORS server records
 * whatever reaches it; it must hear nothing.
 */

let bridge: TestBridge;
let other: ScriptedOrsServer;

beforeAll(async () => {
  other = await ScriptedOrsServer.start();
  bridge = await startTestBridge();
});

afterAll(async () => {
  await bridge.shutdown();
  await other.close();
});

/** Values that carry the other server's address, in the shapes a field might take. */
function carriers(url: string): unknown[] {
  const { host } = new URL(url);
  return [
    url,
    host,
    `${url}/`,
    `offline:${url}`,
    `openai:${url}`,
    { url },
    { ors_url: url, base_url: url, ORS_URL: url, baseUrl: url, endpoint: url, host },
    [url],
    [{ role: 'user', content: `Use the ORS server at ${url}` }],
    { split: url, index: 0 },
    { spec: { ors_url: url, url, base_url: url } },
    // A spec the environment accepts, its question and extra keys naming the other server.
    { spec: { question: `Ask ${url}`, answer: 1, ors_url: url } },
    { extra_body: { ors_url: url, base_url: url } },
  ];
}

/** Sends `body` to `route` and, when a run was started, waits for it to end. */
async function send(
  route: string,
  body: Record<string, unknown>,
  headers: Record<string, string> = {},
): Promise<number> {
  const response = await bridge.fetch(route, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });
  const text = await response.text();
  const runId =
    response.headers.get('x-run-id') ??
    (response.status === 202 ? (JSON.parse(text) as { run_id: string }).run_id : null);
  if (runId) await bridge.readEvents(runId);
  return response.status;
}

describe('the ORS server of a run', () => {
  it('cannot be changed by any field of POST /v1/runs', async () => {
    const fields = Object.keys(RunRequestSchema.shape);
    const accepted: string[] = [];
    for (const field of fields) {
      for (const value of carriers(other.url)) {
        if ((await send('/v1/runs', { env: 'arith', [field]: value })) === 202) accepted.push(field);
      }
    }
    // Fields that take free text or objects do accept the URL (as text, metadata, a task spec, secrets).
    expect(new Set(accepted)).toEqual(new Set(['instructions', 'input', 'metadata', 'secrets', 'task', 'sampling']));
    expect(other.requests).toEqual([]);
  });

  it('cannot be changed by any field of POST /v1/chat/completions', async () => {
    const fields = Object.keys(ChatCompletionRequestSchema.shape);
    const accepted = new Set<string>();
    for (const field of fields) {
      for (const value of carriers(other.url)) {
        if (
          (await send('/v1/chat/completions', {
            messages: [{ role: 'user', content: 'hi' }],
            env: 'arith',
            [field]: value,
          })) === 200
        )
          accepted.add(field);
      }
    }
    // Free-text and ignored fields take the URL and the completion is played — against the configured server.
    expect([...accepted]).toEqual(expect.arrayContaining(['messages', 'metadata', 'user']));
    expect(other.requests).toEqual([]);
  });

  it('cannot be changed by unknown keys, headers or the query string', async () => {
    const url = other.url;
    for (const key of ['ors_url', 'ORS_URL', 'orsUrl', 'base_url', 'server', 'endpoint']) {
      expect(await send('/v1/runs', { env: 'arith', [key]: url })).toBe(400);
    }
    const headers = {
      'X-ORS-URL': url,
      'X-Forwarded-Host': new URL(url).host,
      Forwarded: `host=${new URL(url).host}`,
      Referer: url,
      'X-Original-URL': url,
    };
    expect(await send(`/v1/runs?ors_url=${encodeURIComponent(url)}`, { env: 'arith' }, headers)).toBe(202);
    expect(
      await send(
        `/v1/chat/completions?ors_url=${encodeURIComponent(url)}`,
        { messages: [{ role: 'user', content: 'hi' }] },
        headers,
      ),
    ).toBe(400);
    expect(other.requests).toEqual([]);
    expect(bridge.orsServer!.activeSessionIds()).toEqual([]);
  });
});
