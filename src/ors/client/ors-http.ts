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
}

export interface OrsHttpInit {
  method: 'GET' | 'POST';
  headers: Record<string, string>;
  body?: string;
  /** Aborts the request, or the reading of its body. */
  signal: AbortSignal;
  /**
   * May go on a kept-alive connection. Only for requests that are safe to send twice: a connection the
   * server closed while it idled fails the next request written on it before any answer, which then
   * cannot be told from a server that read it and broke off — the client resends idempotent requests
   * after any failure, but must not resend a `/create` or a tool call (docs/ors.md).
   */
  reuse: boolean;
}

/** Sends one request; rejects when no answer came (refused, reset, aborted), as `fetch` does. */
export type OrsHttp = (url: string, init: OrsHttpInit) => Promise<OrsHttpResponse>;

/** `fetchFn` as an {@link OrsHttp}. */
export function fetchHttp(fetchFn: typeof fetch): OrsHttp {
  return (url, { reuse: _reuse, ...init }) => fetchFn(url, init);
}

/**
 * An {@link OrsHttp} on `node:http` (`src/http-client`): requests that may be reused go over its
 * keep-alive agents, the others each on a connection of their own.
 */
export function nodeOrsHttp(http: NodeHttp = createNodeHttp()): OrsHttp {
  return async (url, init) => new NodeHttpResponse(url, await http.send(url, init));
}
