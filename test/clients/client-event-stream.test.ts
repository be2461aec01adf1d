import fc from 'fast-check';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createOfflineProvider } from '../../adapters/models/offline/offline-provider.js';
import {
  type AnyRunEvent,
  createClient,
  isKnownRunEvent,
  type ReconnectOptions,
  StreamInterruptedError,
} from '../../src/client/index.js';
import { startTestBridge, type TestBridge } from '../support/start-test-bridge.js';
import {
  type Cut,
  type CutProxyRequest,
  type StreamCutProxy,
  startStreamCutProxy,
} from '../support/stream-cut-proxy.js';

/** The bridge's `retry:`, which the client waits at least after a reconnect that brought nothing. */
const SERVER_RETRY_MS = 3000;

async function collect(events: AsyncIterable<AnyRunEvent>): Promise<AnyRunEvent[]> {
  const log: AnyRunEvent[] = [];
  for await (const event of events) log.push(event);
  return log;
}

const isEventsRequest = (url: string) => /^\/v1\/runs\/[^/]+\/events/.test(url);

/**
 * `runs.events` of `runbridge/client` through a proxy that breaks its connections to a real bridge:
 * whatever the cuts, the client yields exactly the run's log, resuming with `Last-Event-ID`, and it
 * waits as long as the server's `retry:` or `Retry-After` asks before asking again.
 */
describe('the client event stream under broken connections', () => {
  let bridge: TestBridge;
  let proxy: StreamCutProxy | undefined;

  beforeAll(async () => {
    // A token every 2 ms: runs stream for a second or so, so the cuts land while they are live.
    bridge = await startTestBridge({}, { providers: [createOfflineProvider({ tokenDelayMs: 2 })] });
  });
  afterEach(async () => {
    await proxy?.close();
    proxy = undefined;
  });
  afterAll(() => bridge?.shutdown());

  /** A proxy in front of the bridge that cuts the n-th events request as `cuts[n]` says, and lets everything else through. */
  async function proxyCutting(
    cuts: readonly Cut[],
  ): Promise<{ proxy: StreamCutProxy; streams: () => CutProxyRequest[] }> {
    let streamIndex = 0;
    proxy = await startStreamCutProxy(bridge.url, ({ url }) =>
      isEventsRequest(url) ? cuts[streamIndex++] : undefined,
    );
    const current = proxy;
    return { proxy: current, streams: () => current.requests.filter((request) => isEventsRequest(request.url)) };
  }

  function clientOf(target: StreamCutProxy, reconnect: ReconnectOptions = {}) {
    // A tiny base delay: any wait the tests see comes from the server's retry: or Retry-After.
    return createClient({ baseUrl: target.url, reconnect: { baseDelayMs: 1, ...reconnect } });
  }

  it('yields exactly the run’s log, whatever the bytes at which its connections are cut', async () => {
    const cut: fc.Arbitrary<Cut> = fc.oneof(
      { weight: 8, arbitrary: fc.integer({ min: 1, max: 6000 }).map((bytes) => ({ bytes })) },
      { weight: 1, arbitrary: fc.integer({ min: 1, max: 40 }).map((frames) => ({ frames, end: true })) },
      { weight: 1, arbitrary: fc.constant({ reset: true as const }) },
    );
    await fc.assert(
      fc.asyncProperty(fc.array(cut, { minLength: 1, maxLength: 5 }), async (cuts) => {
        const { proxy: current, streams } = await proxyCutting(cuts);
        try {
          const client = clientOf(current, { retries: 10 });
          const { run_id } = await client.runs.create({ env: 'arith', task: { split: 'train', index: 2 } });
          const log = await collect(client.runs.events(run_id));
          expect(log).toEqual(await bridge.readEvents(run_id));
          // Each reconnect asked for the events after the last one it had delivered.
          const cursors = streams().map((request) => request.lastEventId);
          expect(cursors[0]).toBeUndefined();
          for (const cursor of cursors.slice(1)) {
            if (cursor !== undefined) expect(log.some((event) => String(event.seq) === cursor)).toBe(true);
          }
        } finally {
          await current.close();
          proxy = undefined;
        }
      }),
      { numRuns: 10 },
    );
  }, 120_000);

  it('waits at least the server’s retry: after a reconnect that brought nothing new', async () => {
    // The first connection delivers one frame, the second nothing, the third everything.
    const { proxy: current, streams } = await proxyCutting([{ frames: 1 }, { bytes: 0 }]);
    const client = clientOf(current);
    const { run_id } = await client.runs.create({ env: 'arith' });
    const log = await collect(client.runs.events(run_id));
    expect(log).toEqual(await bridge.readEvents(run_id));
    const [, second, third] = streams();
    expect(third).toBeDefined();
    expect(third!.at - second!.at).toBeGreaterThanOrEqual(SERVER_RETRY_MS - 1);
  }, 30_000);

  it('resumes after a 503 no sooner than its Retry-After', async () => {
    const { proxy: current, streams } = await proxyCutting([{ frames: 3 }, { status: 503, retryAfter: '1' }]);
    const client = clientOf(current);
    const { run_id } = await client.runs.create({ env: 'arith' });
    const log = await collect(client.runs.events(run_id));
    expect(log).toEqual(await bridge.readEvents(run_id));
    const [, refused, resumed] = streams();
    expect(refused?.status).toBe(503);
    expect(resumed!.at - refused!.at).toBeGreaterThanOrEqual(999);
    expect(resumed!.lastEventId).toBe(refused!.lastEventId);
  }, 30_000);

  it('gives up after the configured reconnects in a row bring nothing, saying where to resume', async () => {
    const nothing: Cut[] = Array.from({ length: 10 }, () => ({ bytes: 0 }));
    const { proxy: current, streams } = await proxyCutting([{ frames: 4 }, ...nothing]);
    // maxDelayMs caps the server's retry: too, which keeps this test short.
    const client = clientOf(current, { retries: 3, maxDelayMs: 5 });
    const { run_id } = await client.runs.create({ env: 'arith' });
    const seen: AnyRunEvent[] = [];
    const failure = await (async () => {
      for await (const event of client.runs.events(run_id)) seen.push(event);
    })().catch((error) => error);
    expect(failure).toBeInstanceOf(StreamInterruptedError);
    const lastSeq = seen.at(-1)!.seq;
    expect(failure.lastSeq).toBe(lastSeq);
    expect(failure.message).toContain(`Resume later with runs.events(runId, { after: ${lastSeq} })`);
    // The connection that delivered, the resume that brought nothing, its 3 retries; then nothing more.
    expect(streams()).toHaveLength(5);
    expect(failure.message).toContain('and 4 connections in a row brought nothing new');
    expect(seen).toEqual((await bridge.readEvents(run_id)).slice(0, seen.length));
  });

  it('lets events of types it does not know through, typed loosely, in their place in the log', async () => {
    const { run_id } = await createClient({ baseUrl: bridge.url }).runs.create({ env: 'arith' });
    const log = await bridge.readEvents(run_id);
    // A newer bridge, as far as this client can tell: reasoning.available renamed to a type it has never seen.
    const rename = (text: string) => text.replaceAll('reasoning.available', 'reasoning.summary');
    const newer = createClient({
      baseUrl: bridge.url,
      fetch: async (input, init) => {
        const answer = await fetch(input, init);
        return new Response(rename(await answer.text()), { status: answer.status, headers: answer.headers });
      },
    });
    const seen = await collect(newer.runs.events(run_id));
    expect(seen).toEqual(JSON.parse(rename(JSON.stringify(log))));
    const unknown = seen.filter((event) => !isKnownRunEvent(event));
    expect(unknown.length).toBeGreaterThan(0);
    expect(unknown.every((event) => event.event === 'reasoning.summary' && typeof event.text === 'string')).toBe(true);
  });
});
