import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { createNodeHttp } from '../../../src/ors/client/ors-http.js';

/**
 * The ORS client's default transport (`node:http` keep-alive): connections are reused, a kept-alive
 * connection the server dropped while idle costs no failure (the request goes again, once, on a new
 * connection), and an abort ends a request as fetch's would.
 */
describe('the ORS client on node:http', () => {
  const stops: Array<() => Promise<void>> = [];
  afterEach(async () => {
    for (const stop of stops.splice(0)) await stop();
  });

  async function serve(
    handler: Parameters<typeof createServer>[1],
  ): Promise<{ url: string; server: Server; connections: () => number; requests: () => number }> {
    let connections = 0;
    let requests = 0;
    const server = createServer((req, res) => {
      requests++;
      handler?.(req, res);
    });
    server.on('connection', () => connections++);
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    stops.push(async () => {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    });
    return {
      url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
      server,
      connections: () => connections,
      requests: () => requests,
    };
  }

  const init = (signal = new AbortController().signal) => ({
    method: 'POST' as const,
    headers: {},
    body: '{"a":1}',
    signal,
  });

  it('keeps one connection alive across requests, and reads bodies whole', async () => {
    const target = await serve((req, res) => {
      let body = '';
      req.on('data', (chunk) => (body += chunk));
      req.on('end', () => res.end(`echo ${body} 🚀`));
    });
    const http = createNodeHttp();
    stops.push(async () => http.close());
    for (let i = 0; i < 3; i++) {
      const answer = await http.send(`${target.url}/x`, init());
      expect(answer.ok).toBe(true);
      expect(await answer.text()).toBe('echo {"a":1} 🚀');
    }
    expect(target.connections()).toBe(1);
  });

  it('sends a request again on a new connection when the server dropped the kept-alive one while it idled', async () => {
    const target = await serve((_req, res) => res.end('ok'));
    const http = createNodeHttp();
    stops.push(async () => http.close());
    expect(await (await http.send(`${target.url}/first`, init())).text()).toBe('ok');
    // The server drops every idle connection without telling the client first: the client's pooled
    // socket is dead, and the next request written on it is reset before any answer.
    target.server.closeIdleConnections();
    const second = await http.send(`${target.url}/second`, init());
    expect(await second.text()).toBe('ok');
    expect(target.requests()).toBe(2);
  });

  it('rejects at once when its signal aborts before the answer', async () => {
    const target = await serve(() => undefined);
    const http = createNodeHttp();
    stops.push(async () => http.close());
    const controller = new AbortController();
    const pending = http.send(`${target.url}/hang`, init(controller.signal));
    await new Promise((resolve) => setTimeout(resolve, 50));
    controller.abort();
    await expect(pending).rejects.toMatchObject({ name: 'AbortError' });
  });
});
