import http from 'node:http';
import type { AddressInfo } from 'node:net';

/** One request the proxy forwarded, as it left and as it was answered. */
export interface ForwardedRequest {
  method: string;
  /** Path and query, as the browser asked. */
  url: string;
  /** The `Last-Event-ID` header the browser sent, if any. */
  lastEventId: string | undefined;
  /** The upstream's status, once it answered. */
  status?: number;
}

/** A running {@link startPageProxy}. */
export interface PageProxy {
  /** Base URL of the page's origin, e.g. `http://127.0.0.1:43210`. */
  url: string;
  /** Every forwarded request, in arrival order. */
  readonly requests: ForwardedRequest[];
  /** Cuts every response still streaming to the browser, as a server that drops connections would; returns how many. */
  dropOpenResponses(): number;
  /** Stops listening and cuts every connection, both sides. */
  close(): Promise<void>;
}

const HOP_BY_HOP = ['connection', 'keep-alive', 'transfer-encoding', 'content-length'];

/**
 * A loopback server for browser tests: serves `page` (HTML) at `/` and forwards every other request
 * to `upstream` unchanged, streaming the answer back as it comes. The page and the API it calls then
 * share one origin, so the browser needs no CORS; and the test sees what the browser sent (e.g.
 * `Last-Event-ID`) and can cut its streams at a moment it chooses.
 */
export async function startPageProxy(upstream: string, page: string): Promise<PageProxy> {
  const target = new URL(upstream);
  const requests: ForwardedRequest[] = [];
  const open = new Set<http.ServerResponse>();
  const inFlight = new Set<http.ClientRequest>();

  const server = http.createServer((req, res) => {
    if (req.url === '/') {
      res.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8', 'Cache-Control': 'no-store' });
      res.end(page);
      return;
    }
    const header = req.headers['last-event-id'];
    const forwarded: ForwardedRequest = {
      method: req.method ?? 'GET',
      url: req.url ?? '/',
      lastEventId: Array.isArray(header) ? header[0] : header,
    };
    requests.push(forwarded);
    const outgoing = http.request(new URL(forwarded.url, target), {
      method: forwarded.method,
      headers: { ...req.headers, host: target.host },
      agent: false,
    });
    inFlight.add(outgoing);
    outgoing.on('close', () => inFlight.delete(outgoing));
    outgoing.on('error', () => res.destroy());
    // A browser that goes away, or a response the test cuts, goes away for the upstream too.
    res.on('close', () => {
      open.delete(res);
      outgoing.destroy();
    });
    outgoing.on('response', (answer) => {
      forwarded.status = answer.statusCode;
      const headers = { ...answer.headers };
      for (const name of HOP_BY_HOP) delete headers[name];
      res.writeHead(answer.statusCode ?? 502, headers);
      res.flushHeaders();
      open.add(res);
      answer.pipe(res);
    });
    req.pipe(outgoing);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));

  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    requests,
    dropOpenResponses() {
      const cut = [...open].filter((res) => !res.writableEnded);
      for (const res of cut) res.destroy();
      return cut.length;
    },
    async close() {
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeAllConnections();
      for (const outgoing of inFlight) outgoing.destroy();
      await closed;
    },
  };
}
