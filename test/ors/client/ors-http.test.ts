import { describe, expect, it, onTestFinished } from 'vitest';
import { createNodeHttp, RECENT_MS } from '../../../src/http-client/node-http.js';
import { nodeOrsHttp } from '../../../src/ors/client/ors-http.js';
import { orsFetchText } from '../../../src/ors/client/ors-request.js';
import { eventually } from '../../support/eventually.js';
import { serveLoopbackInTest as serve } from '../../support/loopback-server.js';

/**
 * The ORS client's default transport (`node:http`): requests safe to send twice share kept-alive
 * connections; the others (a `/create`, a tool call) go only on a connection that answered under a
 * second ago, so a connection the server closes as idle can never make one fail ambiguously; an abort
 * ends a request as fetch's would.
 */
describe('the ORS client on node:http', () => {
  const init = (idempotent: boolean, signal = new AbortController().signal) => ({
    method: 'POST' as const,
    headers: {},
    body: '{"a":1}',
    signal,
    idempotent,
  });

  it('keeps one connection alive across requests that may be reused, and reads bodies whole', async () => {
    const target = await serve((_req, res, body) => res.end(`echo ${body} 🚀`));
    const http = createNodeHttp();
    onTestFinished(() => http.close());
    const send = nodeOrsHttp(http);
    for (let i = 0; i < 3; i++) {
      const answer = await send(`${target.url}/x`, init(true));
      expect(answer.ok).toBe(true);
      expect(await answer.text()).toBe('echo {"a":1} 🚀');
    }
    expect(target.connections()).toBe(1);
  });

  it("makes an answer's Headers only for a caller that reads them", async () => {
    // A `Headers` validates every name and value it is given; most ORS answers are never asked for theirs.
    const target = await serve((_req, res) => res.end('{"ok":true}'));
    const http = createNodeHttp();
    onTestFinished(() => http.close());
    const Original = globalThis.Headers;
    let made = 0;
    globalThis.Headers = class extends Original {
      constructor(init?: ConstructorParameters<typeof Original>[0]) {
        super(init);
        made++;
      }
    };
    onTestFinished(() => {
      globalThis.Headers = Original;
    });
    const transport = {
      baseUrl: target.url,
      send: nodeOrsHttp(http),
      headers: {},
      requestTimeoutMs: 5_000,
      maxAnswerBytes: 1024,
      retry: { retries: 0, baseDelayMs: 1, maxDelayMs: 1 },
    };
    const answer = await orsFetchText(transport, { method: 'GET', path: '/x', kind: 'server', idempotent: true });
    expect(answer.text).toBe('{"ok":true}');
    expect(made).toBe(0);
    expect(answer.headers.get('content-length')).toBe('11');
    expect(made).toBe(1);
  });

  it('sends a request that must not be sent twice only on a connection that answered under a second ago', async () => {
    const target = await serve((_req, res) => res.end('ok'));
    const http = createNodeHttp();
    onTestFinished(() => http.close());
    const send = nodeOrsHttp(http);
    for (let i = 0; i < 3; i++) expect(await (await send(`${target.url}/call`, init(false))).text()).toBe('ok');
    expect(target.connections()).toBe(1);
    // Idle longer than that, the connection is closed rather than trusted with such a request.
    await eventually(() => target.open() === 0, `the connection to close after ${RECENT_MS} ms idle`);
    expect(await (await send(`${target.url}/call`, init(false))).text()).toBe('ok');
    expect(target.connections()).toBe(2);
    expect(target.requests()).toBe(4);
  });

  it('rejects at once when its signal aborts before the answer', async () => {
    const target = await serve(() => undefined);
    const http = createNodeHttp();
    onTestFinished(() => http.close());
    const send = nodeOrsHttp(http);
    const controller = new AbortController();
    const pending = send(`${target.url}/hang`, init(true, controller.signal));
    await eventually(() => target.requests() === 1, 'the request to reach the server');
    controller.abort();
    await expect(pending).rejects.toMatchObject({ name: 'AbortError' });
  });
});
