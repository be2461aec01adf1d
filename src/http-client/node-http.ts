import { Agent as HttpAgent, request as httpRequest, type IncomingMessage } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import { withTraceHeaders } from './trace-headers.js';

/** One request as {@link NodeHttp} sends it. */
export interface NodeHttpInit {
  method: string;
  headers: Record<string, string>;
  body?: string | Uint8Array;
  /** Aborts the request, or the reading of its body. */
  signal?: AbortSignal;
  /**
   * Which kept-alive connection may carry it. `'any'`: for a request the sender may repeat after a
   * failure. `'recent'`: for one that must not be sent twice (a tool call): only a connection that
   * finished an exchange less than {@link RECENT_MS} ago, else a new one. A server closes a connection
   * as idle only after seconds (and the agent heeds its `Keep-Alive: timeout` hint), so a recent one is
   * not being closed under the request, which would leave the sender unsure whether it was read.
   */
  reuse: 'any' | 'recent';
}

/**
 * How long a connection stays good for requests that must not be sent twice: under every common
 * server's idle timeout (Node's and uvicorn's 5 s, gunicorn's 2 s).
 */
export const RECENT_MS = 1000;

/**
 * The client side of HTTP that runbridge itself sends on: the ORS client and the model SDKs. On
 * `node:http` rather than the global `fetch`, whose WHATWG streams cost about 1.7× the CPU per
 * exchange (`bench/`, benchmark 2's two loops).
 */
export interface NodeHttp {
  /** Sends one request; resolves with the answer's head (its body still to read), rejects when none came. */
  send(url: string, init: NodeHttpInit): Promise<IncomingMessage>;
  /** Ends the idle kept-alive connections. */
  close(): void;
}

/**
 * A {@link NodeHttp} with keep-alive agents of its own for `http:` and `https:` (idle sockets do not
 * keep the process alive): one pair keeps connections as long as the server does, the other closes
 * them after {@link RECENT_MS} idle.
 */
export function createNodeHttp(): NodeHttp {
  const agents = {
    any: { http: new HttpAgent({ keepAlive: true }), https: new HttpsAgent({ keepAlive: true }) },
    recent: {
      http: new HttpAgent({ keepAlive: true, timeout: RECENT_MS }),
      https: new HttpsAgent({ keepAlive: true, timeout: RECENT_MS }),
    },
  };
  return {
    send: (url, init) =>
      new Promise((resolve, reject) => {
        const { signal } = init;
        if (signal?.aborted) return reject(abortError());
        const target = new URL(url);
        const secure = target.protocol === 'https:';
        const traced = withTraceHeaders(init.headers);
        const headers =
          init.body === undefined ? traced : { ...traced, 'content-length': String(Buffer.byteLength(init.body)) };
        const agent = agents[init.reuse][secure ? 'https' : 'http'];
        let answer: IncomingMessage | undefined;
        const req = (secure ? httpsRequest : httpRequest)(target, { method: init.method, headers, agent }, (res) => {
          answer = res;
          resolve(res);
        });
        // Handled here rather than by `request`'s own `signal`, which ends a body being read with
        // `ECONNRESET`: like `fetch`, an abort ends the request, or the reading of its body, with an
        // AbortError, which the SDKs take for the caller's own cancel.
        const abort = () => {
          const error = abortError();
          answer?.destroy(error);
          req.destroy(error);
        };
        signal?.addEventListener('abort', abort, { once: true });
        req.once('close', () => signal?.removeEventListener('abort', abort));
        req.on('error', reject);
        req.end(init.body);
      }),
    close() {
      for (const pair of Object.values(agents)) {
        pair.http.destroy();
        pair.https.destroy();
      }
    },
  };
}

function abortError(): DOMException {
  return new DOMException('This operation was aborted', 'AbortError');
}
