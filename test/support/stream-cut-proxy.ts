import http from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * What the proxy does to one request: forward it whole (`undefined`); stop its answer after `bytes`
 * bytes of body (0: right after the headers) or after `frames` whole SSE frames, by cutting the
 * connection or, with `end`, by ending the body cleanly; `reset` the connection before any answer;
 * or answer `status` itself with the bridge's error body (and `Retry-After` when given).
 */
export type Cut =
  | undefined
  | { bytes: number; end?: boolean }
  | { frames: number; end?: boolean }
  | { reset: true }
  | { status: number; retryAfter?: string };

/** One request the proxy saw. */
export interface CutProxyRequest {
  method: string;
  /** Path and query, as the client asked. */
  url: string;
  /** The `Last-Event-ID` header the client sent, if any. */
  lastEventId: string | undefined;
  /** When it arrived (`performance.now()`), to check the waits between reconnects. */
  at: number;
  /** What the proxy did to it. */
  cut: Cut;
  /** The upstream's status, once it answered. */
  status?: number;
}

/** A running {@link startStreamCutProxy}. */
export interface StreamCutProxy {
  /** The proxy's base URL; point the client here. */
  url: string;
  /** Every request, in arrival order. */
  readonly requests: CutProxyRequest[];
  /** Cuts every answer still streaming to the client, as a server that died would; returns how many. */
  dropOpenResponses(): number;
  /** Stops listening and cuts every connection, both sides. */
  close(): Promise<void>;
}

const HOP_BY_HOP = ['connection', 'keep-alive', 'transfer-encoding', 'content-length'];

/**
 * A loopback reverse proxy in front of `upstream` that cuts answers where `plan` says, as a flaky
 * network or a proxy with a timeout would: `plan` gets each request (and how many came before it)
 * and answers its {@link Cut}. A cut answer delivers exactly that many body bytes — mid-frame,
 * mid-line or mid-character — then the connection closes without the end of the body.
 */
export async function startStreamCutProxy(
  upstream: string,
  plan: (request: { method: string; url: string; index: number }) => Cut,
): Promise<StreamCutProxy> {
  const target = new URL(upstream);
  const requests: CutProxyRequest[] = [];
  const inFlight = new Set<http.ClientRequest>();
  const open = new Set<http.ServerResponse>();

  const server = http.createServer((req, res) => {
    open.add(res);
    res.on('close', () => open.delete(res));
    const header = req.headers['last-event-id'];
    const method = req.method ?? 'GET';
    const url = req.url ?? '/';
    const cut = plan({ method, url, index: requests.length });
    requests.push({ method, url, lastEventId: Array.isArray(header) ? header[0] : header, at: performance.now(), cut });
    const seen = requests.at(-1)!;
    if (cut !== undefined && 'reset' in cut) {
      req.socket.destroy();
      return;
    }
    if (cut !== undefined && 'status' in cut) {
      seen.status = cut.status;
      const headers: Record<string, string> = { 'Content-Type': 'application/json' };
      if (cut.retryAfter !== undefined) headers['Retry-After'] = cut.retryAfter;
      const error = { code: 'proxy_fault', message: `The test proxy answered ${cut.status}.` };
      res.writeHead(cut.status, headers).end(JSON.stringify({ error }));
      return;
    }
    const outgoing = http.request(new URL(url, target), {
      method,
      headers: { ...req.headers, host: target.host },
      agent: false,
    });
    inFlight.add(outgoing);
    outgoing.on('close', () => inFlight.delete(outgoing));
    outgoing.on('error', () => res.destroy());
    res.on('close', () => outgoing.destroy());
    outgoing.on('response', (answer) => {
      seen.status = answer.statusCode;
      const headers = { ...answer.headers };
      for (const name of HOP_BY_HOP) delete headers[name];
      res.writeHead(answer.statusCode ?? 502, headers);
      res.flushHeaders();
      if (cut === undefined) {
        answer.pipe(res);
        return;
      }
      const stop = () => {
        answer.destroy();
        if (cut.end) res.end();
        else res.destroy();
      };
      const budget = 'bytes' in cut ? byteBudget(cut.bytes) : frameBudget(cut.frames);
      let stopped = false;
      const forward = (chunk: Buffer) => {
        if (stopped) return;
        const { take, done } = budget(chunk);
        if (!done) {
          res.write(chunk);
          return;
        }
        stopped = true;
        // The last piece is on its way to the socket before the connection goes.
        res.write(chunk.subarray(0, take), stop);
      };
      forward(Buffer.alloc(0));
      answer.on('data', forward);
      answer.on('end', () => {
        if (!stopped) res.end();
      });
    });
    req.pipe(outgoing);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));

  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    requests,
    dropOpenResponses() {
      const count = open.size;
      for (const res of open) res.destroy();
      return count;
    },
    async close() {
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeAllConnections();
      for (const outgoing of inFlight) outgoing.destroy();
      await closed;
    },
  };
}

/** Takes from each chunk what may pass of it; `done` once nothing more may. */
type Budget = (chunk: Buffer) => { take: number; done: boolean };

function byteBudget(limit: number): Budget {
  let left = limit;
  return (chunk) => {
    const take = Math.min(left, chunk.length);
    left -= take;
    return { take, done: left === 0 };
  };
}

/** Passes bytes up to and including the blank line that ends the `limit`-th frame (LF endings, as the bridge writes). */
function frameBudget(limit: number): Budget {
  let frames = 0;
  let previous = -1;
  return (chunk) => {
    if (frames >= limit) return { take: 0, done: true };
    for (let i = 0; i < chunk.length; i++) {
      const byte = chunk[i]!;
      if (byte === 0x0a && previous === 0x0a && ++frames === limit) return { take: i + 1, done: true };
      previous = byte;
    }
    return { take: chunk.length, done: false };
  };
}
