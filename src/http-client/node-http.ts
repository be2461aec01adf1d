import { Agent as HttpAgent, request as httpRequest, type IncomingMessage } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';

/** One request as {@link NodeHttp} sends it. */
export interface NodeHttpInit {
  method: string;
  headers: Record<string, string>;
  body?: string | Uint8Array;
  /** Aborts the request, or the reading of its body. */
  signal?: AbortSignal;
  /** May go on a kept-alive connection; otherwise it gets a connection of its own. */
  reuse: boolean;
}

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
 * keep the process alive).
 */
export function createNodeHttp(): NodeHttp {
  const agents = {
    http: new HttpAgent({ keepAlive: true }),
    https: new HttpsAgent({ keepAlive: true }),
  };
  return {
    send: (url, init) =>
      new Promise((resolve, reject) => {
        const { signal } = init;
        if (signal?.aborted) return reject(abortError());
        const target = new URL(url);
        const secure = target.protocol === 'https:';
        const headers =
          init.body === undefined
            ? init.headers
            : { ...init.headers, 'content-length': String(Buffer.byteLength(init.body)) };
        const agent = init.reuse ? (secure ? agents.https : agents.http) : false;
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
      agents.http.destroy();
      agents.https.destroy();
    },
  };
}

function abortError(): DOMException {
  return new DOMException('This operation was aborted', 'AbortError');
}
