import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createOfflineProvider } from '../../adapters/models/offline/offline-provider.js';
import {
  type AnyRunEvent,
  ApiError,
  AuthenticationError,
  ConflictError,
  ConnectionError,
  createClient,
  InvalidRequestError,
  isKnownRunEvent,
  isTerminalRunEvent,
  NotFoundError,
  type RunbridgeClient,
  RunbridgeClientError,
  ServerError,
  UnexpectedResponseError,
} from '../../src/client/index.js';
import { TERMINAL_EVENT_TYPES } from '../../src/protocol/run-events.js';
import { startTestBridge, type TestBridge } from '../support/start-test-bridge.js';
import { unusedPort } from '../support/unused-port.js';

async function collect(events: AsyncIterable<AnyRunEvent>): Promise<AnyRunEvent[]> {
  const log: AnyRunEvent[] = [];
  for await (const event of events) log.push(event);
  return log;
}

/** `runbridge/client` against a real bridge with API keys: every route it wraps, and the errors it turns answers into. */
describe('the runbridge client', () => {
  let bridge: TestBridge;
  /** The same bridge, whose offline model pauses 40 ms per token: its runs stay running long enough to be cancelled. */
  let slow: TestBridge;
  let client: RunbridgeClient;

  beforeAll(async () => {
    bridge = await startTestBridge(
      { RUNBRIDGE_API_KEYS: 'key-a-0123456789ab,key-b-0123456789ab' },
      { apiKey: 'key-a-0123456789ab' },
    );
    slow = await startTestBridge({}, { providers: [createOfflineProvider({ tokenDelayMs: 40 })] });
    client = createClient({ baseUrl: `${bridge.url}/`, apiKey: 'key-a-0123456789ab' });
  });
  afterAll(async () => {
    await bridge?.shutdown();
    await slow?.shutdown();
  });

  it('starts a run, follows its events to the terminal one — exactly the log the bridge holds — and reads its snapshot', async () => {
    const created = await client.runs.create({ env: 'arith', task: { split: 'train', index: 1 } });
    expect(created).toMatchObject({
      run_id: expect.stringMatching(/^run_/),
      events_url: `/v1/runs/${created.run_id}/events`,
    });

    const log = await collect(client.runs.events(created.run_id));
    expect(log).toEqual(await bridge.readEvents(created.run_id));
    expect(log.every(isKnownRunEvent)).toBe(true);
    expect(log.filter(isTerminalRunEvent).map((event) => event.event)).toEqual(['run.completed']);

    const snapshot = await client.runs.get(created.run_id);
    expect(snapshot).toMatchObject({
      run_id: created.run_id,
      status: 'completed',
      env: 'arith',
      last_seq: log.at(-1)!.seq,
    });
  });

  it('lists the models and the environments a run may name, as the bridge answers them', async () => {
    expect(await client.models.list()).toEqual(await (await bridge.fetch('/v1/models')).json());
    const environments = await client.environments.list();
    expect(environments).toEqual(await (await bridge.fetch('/v1/environments')).json());
    expect(environments.data.map((environment) => environment.id)).toContain('arith');
    const anonymous = createClient({ baseUrl: bridge.url });
    await expect(anonymous.environments.list()).rejects.toThrow(AuthenticationError);
    await expect(anonymous.models.list()).rejects.toThrow(AuthenticationError);
  });

  it('starts after the given seq, and ends at once when nothing is left after it', async () => {
    const { run_id } = await client.runs.create({ env: 'arith' });
    const log = await collect(client.runs.events(run_id));
    expect(await collect(client.runs.events(run_id, { after: 4 }))).toEqual(log.slice(5));
    expect(await collect(client.runs.events(run_id, { after: log.at(-1)!.seq }))).toEqual([]);
    await expect(collect(client.runs.events(run_id, { after: 1.5 }))).rejects.toThrow(/after must be the seq/);
  });

  it('lists the runs of its own key only, newest first, page by page', async () => {
    const other = createClient({ baseUrl: bridge.url, apiKey: 'key-b-0123456789ab' });
    const mine = [await client.runs.create({ env: 'arith' }), await client.runs.create({ env: 'arith' })];
    const theirs = await other.runs.create({ env: 'arith' });
    const first = await client.runs.list({ limit: 1 });
    expect(first.data.map((run) => run.run_id)).toEqual([mine[1]!.run_id]);
    expect(first.next).toBe(mine[1]!.run_id);
    const second = await client.runs.list({ limit: 1, after: first.next! });
    expect(second.data.map((run) => run.run_id)).toEqual([mine[0]!.run_id]);
    const all = await client.runs.list({ limit: 100 });
    expect(all.data.map((run) => run.run_id)).not.toContain(theirs.run_id);
    await expect(other.runs.get(mine[0]!.run_id)).rejects.toBeInstanceOf(NotFoundError);
  });

  it('answers the same run for the same idempotency key and body, and a ConflictError for another body', async () => {
    const first = await client.runs.create({ env: 'arith' }, { idempotencyKey: 'order-17' });
    const again = await client.runs.create({ env: 'arith' }, { idempotencyKey: 'order-17' });
    expect(again.run_id).toBe(first.run_id);
    const conflict = await client.runs.create({ env: 'workspace' }, { idempotencyKey: 'order-17' }).catch((e) => e);
    expect(conflict).toBeInstanceOf(ConflictError);
    expect(conflict).toMatchObject({ status: 409, code: 'idempotency_conflict', name: 'ConflictError' });
  });

  it('cancels a running run, refuses to delete it while it runs, then forgets it', async () => {
    const slowClient = createClient({ baseUrl: slow.url });
    const { run_id } = await slowClient.runs.create({ env: 'arith' });
    const deleting = await slowClient.runs.delete(run_id).catch((error) => error);
    expect(deleting).toBeInstanceOf(ConflictError);
    expect(deleting.status).toBe(409);

    const cancelled = await slowClient.runs.cancel(run_id);
    expect(cancelled.run_id).toBe(run_id);
    const log = await collect(slowClient.runs.events(run_id));
    expect(log.at(-1)).toMatchObject({ event: 'run.cancelled', reason: 'client' });

    await slowClient.runs.delete(run_id);
    const gone = await slowClient.runs.get(run_id).catch((error) => error);
    expect(gone).toBeInstanceOf(NotFoundError);
    expect(gone).toMatchObject({ status: 404, code: 'run_not_found' });
  });

  it('gets a stream token whose events URL opens the stream without the key', async () => {
    const { run_id } = await client.runs.create({ env: 'arith' });
    const token = await client.runs.streamToken(run_id);
    expect(token.events_url).toMatch(new RegExp(`^/v1/runs/${run_id}/events\\?token=`));
    const response = await fetch(`${bridge.url}${token.events_url}`);
    expect(response.status).toBe(200);
    await response.body?.cancel();
  });

  it('turns error bodies into errors named for their meaning, with the code, message and details of the body', async () => {
    const invalid = await client.runs.create({ env: 'arith', max_turns: 0 }).catch((error) => error);
    expect(invalid).toBeInstanceOf(InvalidRequestError);
    expect(invalid).toBeInstanceOf(ApiError);
    expect(invalid).toBeInstanceOf(RunbridgeClientError);
    expect(invalid).toMatchObject({ status: 400, code: 'invalid_request', name: 'InvalidRequestError' });
    expect(invalid.message).toMatch(/max_turns/);
    expect(invalid.details).toEqual([expect.objectContaining({ path: 'max_turns' })]);

    const unauthorized = await createClient({ baseUrl: bridge.url, apiKey: 'wrong' })
      .runs.list()
      .catch((error) => error);
    expect(unauthorized).toBeInstanceOf(AuthenticationError);
    expect(unauthorized).toMatchObject({ status: 401, code: 'unauthorized', message: expect.stringMatching(/key/) });

    // An event stream that can never be opened fails at once, without reconnects.
    const missing = await collect(client.runs.events('run_missing')).catch((error) => error);
    expect(missing).toBeInstanceOf(NotFoundError);
  });

  it('says when an answer is not the bridge’s: a proxy’s error page, a body that is not JSON', async () => {
    const proxyPage = createClient({
      baseUrl: bridge.url,
      fetch: async () => new Response('<html><h1>502 Bad Gateway</h1></html>', { status: 502 }),
    });
    const failed = await proxyPage.runs.list().catch((error) => error);
    expect(failed).toBeInstanceOf(ServerError);
    expect(failed).toMatchObject({ status: 502, code: 'http_502' });
    expect(failed.message).toContain('GET /v1/runs answered 502 without runbridge');

    const notJson = createClient({ baseUrl: bridge.url, fetch: async () => new Response('ok', { status: 200 }) });
    await expect(notJson.runs.list()).rejects.toBeInstanceOf(UnexpectedResponseError);
    await expect(collect(notJson.runs.events('run_x'))).rejects.toBeInstanceOf(UnexpectedResponseError);
  });

  it('says it could not reach the bridge, naming the URL, when nothing listens there', async () => {
    const port = await unusedPort();
    const nowhere = createClient({ baseUrl: `http://127.0.0.1:${port}` });
    const failed = await nowhere.runs.create({ env: 'arith' }).catch((error) => error);
    expect(failed).toBeInstanceOf(ConnectionError);
    expect(failed.message).toMatch(
      /^POST \/v1\/runs: could not reach runbridge at http:\/\/127\.0\.0\.1:\d+ \(failed: ECONNREFUSED/,
    );
  });

  it('rejects with the signal’s reason when aborted, and closes the stream it had open', async () => {
    const slowClient = createClient({ baseUrl: slow.url });
    const { run_id } = await slowClient.runs.create({ env: 'arith' });
    const stop = new AbortController();
    const seen: AnyRunEvent[] = [];
    const reading = (async () => {
      for await (const event of slowClient.runs.events(run_id, { signal: stop.signal })) {
        seen.push(event);
        if (seen.length === 3) stop.abort(new Error('enough'));
      }
    })();
    await expect(reading).rejects.toThrow('enough');
    expect(seen).toHaveLength(3);
    await expect.poll(() => slow.registry.localStats().subscribers).toBe(0);
    await slowClient.runs.cancel(run_id);
  });

  it('refuses a base URL that is not http(s), an empty API key and a negative reconnect bound before sending anything', () => {
    expect(() => createClient({ baseUrl: 'localhost:8080' })).toThrow(/absolute http\(s\) URL/);
    expect(() => createClient({ baseUrl: 'ftp://example.com' })).toThrow(/absolute http\(s\) URL/);
    expect(() => createClient({ baseUrl: bridge.url, apiKey: ' ' })).toThrow(/apiKey is empty/);
    expect(() => createClient({ baseUrl: bridge.url, reconnect: { retries: -1 } })).toThrow(/reconnect\.retries/);
  });

  it('knows the same terminal event types as the server', () => {
    const terminal = TERMINAL_EVENT_TYPES.map((event) => ({ event, seq: 0, run_id: 'r', timestamp: 0 }));
    expect(terminal.every((event) => isTerminalRunEvent(event as AnyRunEvent))).toBe(true);
    expect(isTerminalRunEvent({ event: 'tool.completed', seq: 0, run_id: 'r', timestamp: 0 } as AnyRunEvent)).toBe(
      false,
    );
  });
});
