import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { ConnectionError, InvalidRequestError, NotFoundError, RateLimitError } from '../../src/client/client-errors.js';
import { clientTransport, send, sendForJson } from '../../src/client/client-transport.js';
import { useTestBridge } from '../support/start-test-bridge.js';
import { unusedPort } from '../support/unused-port.js';

const SRC = fileURLToPath(new URL('../../src/', import.meta.url));

/** A fetch that sends as the global one does and remembers each URL it was asked for. */
function recordingFetch(): { fetch: typeof fetch; urls: string[] } {
  const urls: string[] = [];
  return {
    urls,
    fetch: (input, init) => {
      urls.push(String(input));
      return globalThis.fetch(input, init);
    },
  };
}

describe('the client transport', () => {
  const bridge = useTestBridge({ RUNBRIDGE_MAX_QUEUED_RUNS: '1', RUNBRIDGE_MAX_CONCURRENT_RUNS: '1' });

  it('sends to the path its route key names, each parameter one segment, with the query after it', async () => {
    const { fetch, urls } = recordingFetch();
    const transport = clientTransport({ baseUrl: `${bridge.url}/`, fetch });
    const refused = await send(transport, { route: 'GET /v1/runs/:id', params: { id: 'run_x/../../health' } }).catch(
      (error: unknown) => error,
    );
    expect(refused).toBeInstanceOf(NotFoundError);
    expect(refused).toMatchObject({ status: 404, code: 'run_not_found' });
    const page = await sendForJson(transport, { route: 'GET /v1/runs', query: { limit: 2, status: undefined } });
    expect(page).toMatchObject({ data: [], next: null });
    expect(urls).toEqual([`${bridge.url}/v1/runs/run_x%2F..%2F..%2Fhealth`, `${bridge.url}/v1/runs?limit=2`]);
  });

  it('refuses a parameter of . or .., which a URL would resolve to another path, before sending anything', async () => {
    const { fetch, urls } = recordingFetch();
    const transport = clientTransport({ baseUrl: bridge.url, fetch });
    for (const id of ['.', '..']) {
      await expect(send(transport, { route: 'GET /v1/runs/:id', params: { id } })).rejects.toThrow(TypeError);
    }
    expect(urls).toEqual([]);
  });

  it("turns every refusal into one ApiError: the body's code, message and details, its status, its Retry-After", async () => {
    const transport = clientTransport({ baseUrl: bridge.url });
    const invalid = await send(transport, { route: 'GET /v1/runs', query: { limit: 0 } }).catch((error) => error);
    expect(invalid).toBeInstanceOf(InvalidRequestError);
    expect(invalid).toMatchObject({ status: 400, code: 'invalid_request' });
    expect(invalid.details).toBeDefined();
    const body = { env: 'arith', model: 'offline', max_turns: 50 };
    const made: unknown[] = [];
    for (let attempt = 0; attempt < 4; attempt++) {
      made.push(await sendForJson(transport, { route: 'POST /v1/runs', body }).catch((error) => error));
    }
    const full = made.find((answer) => answer instanceof RateLimitError) as RateLimitError;
    expect(full).toMatchObject({ status: 429, code: 'queue_full' });
    expect(full.retryAfterSeconds).toBeGreaterThan(0);
    for (const answer of made) {
      const id = (answer as { run_id?: string }).run_id;
      if (id !== undefined) await send(transport, { route: 'POST /v1/runs/:id/cancel', params: { id } });
    }
  });

  it('says where it looked when nothing answers', async () => {
    const transport = clientTransport({ baseUrl: `http://127.0.0.1:${await unusedPort()}` });
    await expect(send(transport, { route: 'GET /health' })).rejects.toBeInstanceOf(ConnectionError);
  });
});

describe('one client of the bridge', () => {
  it('is the only one: no module outside src/client fetches a path of the API itself', async () => {
    const files = (await readdir(SRC, { recursive: true })).filter(
      (file) => /\.tsx?$/.test(file) && !file.startsWith('client/'),
    );
    const fetching: string[] = [];
    for (const file of files) {
      const text = await readFile(join(SRC, file), 'utf8');
      if (/\bfetch\(\s*`\$\{[^}]+\}(\/v1\/|\$\{path\})/.test(text)) fetching.push(file);
    }
    expect(fetching).toEqual([]);
  });
});
