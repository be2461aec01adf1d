import type { BodyCaps } from './body-caps.js';
import { createNodeHttp, type NodeHttp } from './node-http.js';
import { NodeHttpResponse } from './node-http-response.js';

/**
 * A `fetch` for the model SDKs (`openai`, `@anthropic-ai/sdk`) that sends on `node:http` with
 * keep-alive, as the global `fetch` does, but without its WHATWG streams: the answer's `body` is the
 * `node:http` response itself, an async iterable of bytes, which both SDKs read as they read a
 * `ReadableStream` (and cancel by ending its iteration). `bench/` (benchmarks 2 and 5) measured the
 * CPU this saves per model turn. A request it cannot carry as plain bytes — a `Request` object, a
 * streamed or multipart body — goes to the global `fetch` unchanged. With `caps`, every answer is read
 * within them (see {@link NodeHttpResponse}): the SDKs only ever see what the caps let through.
 */
export function nodeHttpFetch(http: NodeHttp = createNodeHttp(), caps?: BodyCaps): typeof fetch {
  return async (input, init) => {
    const body = init?.body;
    const plain = body === undefined || body === null || typeof body === 'string' || body instanceof Uint8Array;
    if (!plain || !(typeof input === 'string' || input instanceof URL)) return fetch(input, init);
    const url = String(input);
    const res = await http.send(url, {
      method: init?.method ?? 'GET',
      headers: plainHeaders(init?.headers),
      ...(body === undefined || body === null ? {} : { body }),
      ...(init?.signal ? { signal: init.signal } : {}),
      // The SDKs retry a request that failed before any answer themselves.
      reuse: 'any',
    });
    return new NodeHttpResponse(url, res, caps) as unknown as Response;
  };
}

/**
 * `headers` as `node:http` takes them (names lower-cased, repeated ones joined as `fetch` joins them),
 * without copying a `Headers` first: each copy validates every value again.
 */
function plainHeaders(headers: RequestInit['headers']): Record<string, string> {
  const plain: Record<string, string> = {};
  const add = (value: string, name: string) => {
    const key = name.toLowerCase();
    plain[key] = plain[key] === undefined ? value : `${plain[key]}, ${value}`;
  };
  if (headers instanceof Headers) headers.forEach(add);
  else if (Array.isArray(headers)) for (const [name, value] of headers) add(value!, name!);
  else if (headers !== undefined) for (const [name, value] of Object.entries(headers)) add(String(value), name);
  return plain;
}
