import { Agent as HttpAgent, request as httpRequest, type IncomingMessage } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';

/**
 * The one HTTP exchange the ORS client makes, whatever carries it. A fetch `Response` is one of
 * these, so a caller's own `fetch` plugs in as it is; by default the client sends on `node:http`
 * with keep-alive agents ({@link createNodeHttp}), which costs about half the CPU of the global
 * fetch per request (`bench/`, benchmark 2).
 */
export interface OrsHttpResponse {
  status: number;
  ok: boolean;
  headers: { get(name: string): string | null };
  /** The whole body as text (read once, instead of `body`). */
  text(): Promise<string>;
  /** The body as it arrives (read once, instead of `text`). */
  body: ReadableStream<Uint8Array> | AsyncIterable<Uint8Array> | null;
}

export interface OrsHttpInit {
  method: 'GET' | 'POST';
  headers: Record<string, string>;
  body?: string;
  /** Aborts the request, or the reading of its body. */
  signal: AbortSignal;
}

/** Sends one request; rejects when no answer came (refused, reset, aborted), as `fetch` does. */
export type OrsHttp = (url: string, init: OrsHttpInit) => Promise<OrsHttpResponse>;

/** `fetchFn` as an {@link OrsHttp}. */
export function fetchHttp(fetchFn: typeof fetch): OrsHttp {
  return (url, init) => fetchFn(url, init);
}

/**
 * An {@link OrsHttp} on `node:http` and `node:https`, over keep-alive agents of its own (idle
 * sockets do not keep the process alive; `close` ends them at once).
 */
export function createNodeHttp(): { send: OrsHttp; close(): void } {
  const agents = {
    http: new HttpAgent({ keepAlive: true }),
    https: new HttpsAgent({ keepAlive: true }),
  };
  const attempt = (url: string, init: OrsHttpInit, fresh: boolean): Promise<OrsHttpResponse> =>
    new Promise((resolve, reject) => {
      const target = new URL(url);
      const secure = target.protocol === 'https:';
      const headers =
        init.body === undefined
          ? init.headers
          : { ...init.headers, 'content-length': String(Buffer.byteLength(init.body)) };
      const agent = fresh ? false : secure ? agents.https : agents.http;
      let answered = false;
      const req = (secure ? httpsRequest : httpRequest)(
        target,
        { method: init.method, headers, agent, signal: init.signal },
        (res) => {
          answered = true;
          resolve(responseOf(res));
        },
      );
      req.on('error', (error: NodeJS.ErrnoException) => {
        // A kept-alive socket the server closed while it idled fails the next request sent on it
        // before any answer: the server never read that request (Node's documented race), so it is
        // sent again once, on a new connection — as fetch does — and only a real failure remains.
        if (!answered && req.reusedSocket && error.code === 'ECONNRESET' && !init.signal.aborted) {
          attempt(url, init, true).then(resolve, reject);
          return;
        }
        reject(error);
      });
      req.end(init.body);
    });
  const send: OrsHttp = (url, init) => attempt(url, init, false);
  return {
    send,
    close() {
      agents.http.destroy();
      agents.https.destroy();
    },
  };
}

function responseOf(res: IncomingMessage): OrsHttpResponse {
  const status = res.statusCode ?? 0;
  return {
    status,
    ok: status >= 200 && status < 300,
    headers: {
      get(name) {
        const value = res.headers[name.toLowerCase()];
        return value === undefined ? null : Array.isArray(value) ? value.join(', ') : value;
      },
    },
    async text() {
      const chunks: Buffer[] = [];
      for await (const chunk of res) chunks.push(chunk as Buffer);
      return Buffer.concat(chunks).toString('utf8');
    },
    body: res,
  };
}
