import { createNodeHttp, type NodeHttp } from '../../http-client/node-http.js';
import { NodeHttpResponse } from '../../http-client/node-http-response.js';

/**
 * The one HTTP exchange the ORS client makes, whatever carries it. A fetch `Response` is one of
 * these, so a caller's own `fetch` plugs in as it is; by default the client sends on `node:http`
 * with keep-alive agents ({@link nodeOrsHttp}), which costs about half the CPU of the global
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
  /**
   * True once the whole answer has arrived, when the transport can tell (`node:http`): the rest of
   * `body` can then be read out at once, leaving the connection free for the next request.
   */
  readonly complete?: boolean;
}

export interface OrsHttpInit {
  method: 'GET' | 'POST';
  headers: Record<string, string>;
  body?: string;
  /** Aborts the request, or the reading of its body. */
  signal: AbortSignal;
  /**
   * Safe to send twice. A connection the server closed while it idled fails the next request written
   * on it before any answer, which cannot be told from a server that read it and broke off: the client
   * resends idempotent requests after any failure, but must not resend a `/create` or a tool call, so
   * those go only on a connection that answered under a second ago (docs/ors.md).
   */
  idempotent: boolean;
}

/** Sends one request; rejects when no answer came (refused, reset, aborted), as `fetch` does. */
export type OrsHttp = (url: string, init: OrsHttpInit) => Promise<OrsHttpResponse>;

/** `fetchFn` as an {@link OrsHttp}. */
export function fetchHttp(fetchFn: typeof fetch): OrsHttp {
  return (url, { idempotent: _idempotent, ...init }) => fetchFn(url, init);
}

/**
 * An {@link OrsHttp} on `node:http` (`src/http-client`): idempotent requests go on any kept-alive
 * connection, the others only on a recent one.
 */
export function nodeOrsHttp(http: NodeHttp = createNodeHttp()): OrsHttp {
  return async (url, { idempotent, ...init }) =>
    new NodeHttpResponse(url, await http.send(url, { ...init, reuse: idempotent ? 'any' : 'recent' }));
}
