import { type ClientRequest, request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import { createParser } from 'eventsource-parser';

/**
 * Raw HTTP for the ORS server tests: node:http with no agent (one connection per request, closed
 * after), so no pooled socket or client-side timer outlives a test.
 */

export interface RawResponse {
  status: number;
  headers: IncomingHttpHeaders;
  text: string;
  json(): unknown;
}

export interface RequestOptions {
  method?: string;
  headers?: Record<string, string>;
  /** Sent as JSON (with its content type) unless a string, which is sent as is. */
  body?: unknown;
}

/** One request to `base + path`; resolves with the whole response. */
export function send(base: string, path: string, options: RequestOptions = {}): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const req = start(base, path, options);
    req.on('error', reject);
    req.on('response', (res) => {
      res.setEncoding('utf8');
      let text = '';
      res.on('data', (chunk: string) => {
        text += chunk;
      });
      res.on('error', reject);
      res.on('end', () =>
        resolve({ status: res.statusCode ?? 0, headers: res.headers, text, json: () => JSON.parse(text) as unknown }),
      );
    });
  });
}

/** An SSE event or comment, in arrival order. */
export type SseItem = { kind: 'event'; event: string | undefined; data: string } | { kind: 'comment'; text: string };

/** A streaming SSE response read with eventsource-parser, item by item. */
export interface SseStream {
  status: number;
  headers: IncomingHttpHeaders;
  /** Every byte received so far, as text. */
  readonly raw: string;
  /** The next item; undefined once the response has ended. */
  next(): Promise<SseItem | undefined>;
  /** The next item that is an event (comments are skipped); undefined at the end. */
  nextEvent(): Promise<Extract<SseItem, { kind: 'event' }> | undefined>;
  /** Every remaining item until the response ends. */
  rest(): Promise<SseItem[]>;
  /** Drops the connection (a client going away); resolves once the socket is closed. */
  disconnect(): Promise<void>;
}

/** POSTs to an SSE endpoint and resolves once the response headers have arrived. */
export function openSse(base: string, path: string, options: RequestOptions = {}): Promise<SseStream> {
  return new Promise((resolve, reject) => {
    const req = start(base, path, {
      method: 'POST',
      ...options,
      headers: { Accept: 'text/event-stream', ...options.headers },
    });
    req.on('error', reject);
    req.on('response', (res) => {
      const items: SseItem[] = [];
      const waiters: ((item: SseItem | undefined) => void)[] = [];
      let ended = false;
      let raw = '';
      const push = (item: SseItem) => {
        const waiter = waiters.shift();
        if (waiter) waiter(item);
        else items.push(item);
      };
      const parser = createParser({
        onEvent: (message) => push({ kind: 'event', event: message.event, data: message.data }),
        onComment: (comment) => push({ kind: 'comment', text: comment }),
      });
      const finish = () => {
        if (ended) return;
        ended = true;
        for (const waiter of waiters.splice(0)) waiter(undefined);
      };
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        raw += chunk;
        parser.feed(chunk);
      });
      res.on('end', finish);
      res.on('close', finish);
      res.on('error', finish);
      const next = (): Promise<SseItem | undefined> => {
        const item = items.shift();
        if (item !== undefined) return Promise.resolve(item);
        if (ended) return Promise.resolve(undefined);
        return new Promise((done) => waiters.push(done));
      };
      const stream: SseStream = {
        status: res.statusCode ?? 0,
        headers: res.headers,
        get raw() {
          return raw;
        },
        next,
        async nextEvent() {
          for (;;) {
            const item = await next();
            if (item === undefined || item.kind === 'event') return item;
          }
        },
        async rest() {
          const all: SseItem[] = [];
          for (let item = await next(); item !== undefined; item = await next()) all.push(item);
          return all;
        },
        disconnect() {
          return new Promise((done) => {
            if (req.socket?.destroyed) {
              done();
              return;
            }
            req.socket?.once('close', () => done());
            req.destroy();
          });
        },
      };
      resolve(stream);
    });
  });
}

/** The events of `items` (comments dropped) as `[event, data]` pairs. */
export function eventsOf(items: SseItem[]): [string | undefined, string][] {
  return items.flatMap((item) =>
    item.kind === 'event' ? [[item.event, item.data] as [string | undefined, string]] : [],
  );
}

function start(base: string, path: string, options: RequestOptions): ClientRequest {
  const url = new URL(path, base);
  const headers: Record<string, string> = { ...options.headers };
  let payload: string | undefined;
  if (options.body !== undefined) {
    payload = typeof options.body === 'string' ? options.body : JSON.stringify(options.body);
    headers['Content-Type'] ??= 'application/json';
  }
  const req = httpRequest(url, { method: options.method ?? 'GET', headers, agent: false });
  req.end(payload);
  return req;
}
