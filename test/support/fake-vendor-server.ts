import { readFileSync } from 'node:fs';
import { createServer, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { EventSourceMessage } from 'eventsource-parser';
import { type Flood, type FloodReport, writeFlood } from './flood-writer.js';
import { parseSseText } from './parse-sse-text.js';
import { vendorPause } from './scripted-model.js';

/**
 * A loopback stand-in for an LLM vendor's HTTP API (OpenAI, Anthropic, an OpenAI-compatible
 * server), so the real SDK clients can be tested end to end without network or keys. Each route
 * answers from a script of replies: a recorded SSE stream replayed from `test/fixtures/`, optionally
 * stopped after N frames and then cut, held open or ended; a JSON error with a status and headers;
 * or no answer at all. Every request body is recorded so tests can assert what the adapter sent.
 */

/** One scripted answer. */
export type FakeReply =
  | {
      kind: 'stream';
      /** Path under `test/fixtures/`, e.g. `openai-chat/text.sse`; replayed byte for byte. */
      fixture: string;
      /** Send only this many frames (blank-line separated) of the fixture, then do `then`. */
      stopAfterFrames?: number;
      /** After the frames: `end` the response cleanly (default), `cut` the connection, or `hang`. */
      then?: 'end' | 'cut' | 'hang';
      /** Pause this long before each frame: a model that streams slowly. */
      paceMs?: number;
    }
  | { kind: 'json'; status: number; body: unknown; headers?: Record<string, string> }
  /**
   * A hostile vendor: an answer that never seems to end (see `floods` for how far it got), by default a
   * 200 SSE stream; `status` and `contentType` make it an error body of any size.
   */
  | { kind: 'flood'; flood: Flood; status?: number; contentType?: string }
  /** A 200 SSE stream of exactly `text`, for streams a test writes out itself. */
  | { kind: 'sse'; text: string }
  /** Read the request and never answer (until the client aborts or the server closes). */
  | { kind: 'hang' };

/** A request the fake received. */
export interface RecordedRequest {
  method: string;
  /** Path without the query, e.g. `/v1/chat/completions`. */
  path: string;
  headers: IncomingHttpHeaders;
  /** The parsed JSON body, or the raw text when it is not JSON. */
  body: unknown;
}

export interface FakeVendorServer {
  /** `http://127.0.0.1:<port>` — append the vendor's base path (`/v1`) where its SDK expects it. */
  readonly url: string;
  /** Every request received, in order of arrival. */
  readonly requests: readonly RecordedRequest[];
  /** The floods sent so far, each once the client took all of it or went away. */
  readonly floods: readonly FloodReport[];
  /**
   * Scripts the replies of `route` (`"POST /v1/chat/completions"`): the first request gets the first
   * reply, and so on; the last reply repeats for every later request. Replaces an earlier script.
   */
  reply(route: string, ...replies: [FakeReply, ...FakeReply[]]): void;
  /** The bodies of the requests received on `route`, in order. */
  bodiesOf(route: string): unknown[];
  /** Resolves once at least `count` requests have arrived in total. */
  waitForRequests(count: number): Promise<void>;
  /** Resolves once the response to the `index`-th request (from 0) is closed, by either side. */
  responseClosed(index: number): Promise<void>;
  /** Stops listening and destroys every open connection, including hanging ones. */
  close(): Promise<void>;
}

const FIXTURES = new URL('../fixtures/', import.meta.url);

/**
 * Splits an SSE fixture into frames, each keeping its terminating blank line, so a reply can stop
 * after N of them. This only cuts the bytes for replay; nothing here interprets SSE fields.
 */
export function sseFrames(text: string): string[] {
  return text.split(/(?<=\n\n)/).filter((frame) => frame.trim() !== '');
}

/**
 * The events of an SSE fixture (path under `test/fixtures/`), parsed by the spec, for feeding the
 * pure stream mappers the same bytes the fake server replays.
 */
export function readSseFixture(fixture: string): EventSourceMessage[] {
  return parseSseText(readFileSync(new URL(fixture, FIXTURES), 'utf8'));
}

/** The JSON payloads of a fixture's events, without the `[DONE]` sentinel of Chat Completions. */
export function readSseFixtureData<T>(fixture: string): T[] {
  return readSseFixture(fixture)
    .filter((event) => event.data !== '[DONE]')
    .map((event) => JSON.parse(event.data) as T);
}

/** Starts a fake vendor on a free loopback port. */
export async function startFakeVendorServer(): Promise<FakeVendorServer> {
  const scripts = new Map<string, FakeReply[]>();
  const requests: RecordedRequest[] = [];
  const waiters: Array<{ count: number; resolve: () => void }> = [];
  const closed: Array<Promise<void>> = [];
  const floods: FloodReport[] = [];

  const server = createServer((req, res) => {
    void handle(req, res);
  });

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const responseClosed = new Promise<void>((resolve) => res.once('close', () => resolve()));
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const text = Buffer.concat(chunks).toString('utf8');
    const path = (req.url ?? '/').split('?')[0] ?? '/';
    const method = req.method ?? 'GET';
    requests.push({ method, path, headers: req.headers, body: parseBody(text) });
    closed.push(responseClosed);
    for (const waiter of [...waiters]) {
      if (requests.length >= waiter.count) {
        waiters.splice(waiters.indexOf(waiter), 1);
        waiter.resolve();
      }
    }

    const script = scripts.get(`${method} ${path}`);
    const reply = script && script.length > 1 ? script.shift() : script?.[0];
    if (reply === undefined) {
      sendJson(res, 404, { error: { message: `The fake vendor has no reply scripted for ${method} ${path}.` } });
      return;
    }
    switch (reply.kind) {
      case 'json':
        sendJson(res, reply.status, reply.body, reply.headers);
        return;
      case 'hang':
        return;
      case 'sse':
        res.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache' });
        res.end(reply.text);
        return;
      case 'flood':
        res.writeHead(reply.status ?? 200, {
          'content-type': reply.contentType ?? 'text/event-stream; charset=utf-8',
          'cache-control': 'no-cache',
        });
        floods.push(await writeFlood(res, reply.flood));
        return;
      case 'stream': {
        const frames = sseFrames(readFileSync(new URL(reply.fixture, FIXTURES), 'utf8'));
        res.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache' });
        res.flushHeaders();
        for (const frame of frames.slice(0, reply.stopAfterFrames ?? frames.length)) {
          if (reply.paceMs !== undefined) await vendorPause(reply.paceMs);
          if (res.destroyed) return;
          res.write(frame);
        }
        const then = reply.then ?? 'end';
        // `end` on the socket flushes what was written, then closes without the chunked body's
        // terminator: the client sees the body break off, as when a vendor's connection drops.
        if (then === 'cut') res.socket?.end();
        else if (then === 'end') res.end();
        return;
      }
    }
  }

  function waitForRequests(count: number): Promise<void> {
    if (requests.length >= count) return Promise.resolve();
    return new Promise((resolve) => waiters.push({ count, resolve }));
  }

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;

  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    floods,
    reply(route, ...replies) {
      scripts.set(route, [...replies]);
    },
    bodiesOf(route) {
      return requests.filter((request) => `${request.method} ${request.path}` === route).map((request) => request.body);
    },
    waitForRequests,
    async responseClosed(index) {
      await waitForRequests(index + 1);
      await closed[index];
    },
    close() {
      return new Promise((resolve, reject) => {
        server.close((error) => (error ? reject(error) : resolve()));
        server.closeAllConnections();
      });
    },
  };
}

function parseBody(text: string): unknown {
  if (text === '') return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}

function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text), ...headers });
  res.end(text);
}
