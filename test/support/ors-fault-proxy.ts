import { EventEmitter } from 'node:events';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { createParser } from 'eventsource-parser';
import { type Flood, type FloodReport, writeFlood } from './flood-writer.js';

/** A fault the proxy injects into one request. */
export type OrsFault =
  /** Answer `status` itself (the upstream never sees the request), body `{"detail"}`. */
  | { type: 'status'; status: number; detail?: string; retryAfter?: string }
  /** Forward, then cut the connection right after the `task_id` frame. */
  | { type: 'drop-after-task-id' }
  /** Forward, then cut the connection after `bytes` bytes of the response body. */
  | { type: 'drop-after-bytes'; bytes: number }
  /** Forward the request but answer nothing at all, not even headers; hold the connection open. */
  | { type: 'silent' }
  /** Forward the `task_id` frame, then nothing more (pings included); hold the connection open. */
  | { type: 'silent-after-task-id' }
  /** Forward the `task_id` frame, then end the response cleanly, as a server that forgot the rest would. */
  | { type: 'end-after-task-id' }
  /** Forward the request, and cut the connection as soon as the upstream starts answering. */
  | { type: 'reset-before-response' }
  /**
   * Answer `status` itself (the upstream never sees the request) with a body that never seems to end:
   * a hostile server's flood (see {@link floods} for how far it got).
   */
  | { type: 'flood'; status: number; contentType: string; flood: Flood };

/** A flood the proxy sent, and how it went. */
export interface FloodRecord extends FloodReport {
  path: string;
}

/** Which requests a fault hits, and how many of them (default 1). */
export interface FaultRule {
  method?: string;
  path: string;
  fault: OrsFault;
  times?: number;
}

/** One request as the proxy saw it, with the fault it received (if any). */
export interface ProxiedRequest {
  method: string;
  path: string;
  fault: OrsFault['type'] | undefined;
  /** The W3C `traceparent` the request carried, if any. */
  traceparent?: string;
}

const HOP_BY_HOP = ['connection', 'keep-alive', 'transfer-encoding', 'content-length'];

/**
 * A reverse proxy in front of any ORS server (a scripted fake or a real one) that injects faults per
 * request: N x status then pass, a cut after the `task_id` or after K bytes, a silent connection, a
 * reset before the answer. Requests without a matching rule pass through untouched.
 */
export class OrsFaultProxy {
  readonly requests: ProxiedRequest[] = [];
  /** The floods sent so far, each once the peer took all of it or went away. */
  readonly floods: FloodRecord[] = [];
  readonly #upstream: URL;
  readonly #server: http.Server;
  readonly #rules: Array<FaultRule & { left: number }> = [];
  readonly #inFlight = new Set<http.ClientRequest>();
  readonly #events = new EventEmitter();
  #url = '';

  private constructor(upstream: string) {
    this.#upstream = new URL(upstream);
    this.#server = http.createServer((req, res) => this.#handle(req, res));
  }

  /** Starts a proxy on `127.0.0.1` (free port) that forwards to `upstream` (an ORS base URL). */
  static async start(upstream: string): Promise<OrsFaultProxy> {
    const proxy = new OrsFaultProxy(upstream);
    await new Promise<void>((resolve) => proxy.#server.listen(0, '127.0.0.1', resolve));
    proxy.#url = `http://127.0.0.1:${(proxy.#server.address() as AddressInfo).port}`;
    return proxy;
  }

  /** The proxy's base URL; point the client here. */
  get url(): string {
    return this.#url;
  }

  /** Adds a rule; rules are tried in the order they were added, each until its `times` are used up. */
  inject(rule: FaultRule): void {
    this.#rules.push({ ...rule, left: rule.times ?? 1 });
  }

  /** Requests the proxy saw for `path`. */
  requestsTo(path: string): ProxiedRequest[] {
    return this.requests.filter((request) => request.path === path);
  }

  /** Resolves with the first request (already seen or still to come) that `predicate` accepts. */
  waitForRequest(predicate: (request: ProxiedRequest) => boolean): Promise<ProxiedRequest> {
    const seen = this.requests.find(predicate);
    if (seen) return Promise.resolve(seen);
    return new Promise((resolve) => {
      const listener = (request: ProxiedRequest): void => {
        if (!predicate(request)) return;
        this.#events.off('request', listener);
        resolve(request);
      };
      this.#events.on('request', listener);
    });
  }

  /** Resolves once `count` floods have ended (the peer took all or went away). */
  async floodsEnded(count: number): Promise<FloodRecord[]> {
    while (this.floods.length < count) await new Promise((resolve) => this.#events.once('flood', resolve));
    return this.floods;
  }

  /** Stops listening and cuts every connection, held ones included, both sides. */
  async close(): Promise<void> {
    const closed = new Promise<void>((resolve) => this.#server.close(() => resolve()));
    this.#server.closeAllConnections();
    for (const request of this.#inFlight) request.destroy();
    await closed;
  }

  #take(method: string, path: string): OrsFault | undefined {
    const rule = this.#rules.find(
      (candidate) => candidate.left > 0 && candidate.path === path && (candidate.method ?? method) === method,
    );
    if (!rule) return undefined;
    rule.left -= 1;
    return rule.fault;
  }

  #handle(req: http.IncomingMessage, res: http.ServerResponse): void {
    const method = req.method ?? 'GET';
    const path = new URL(req.url ?? '/', 'http://x').pathname;
    const fault = this.#take(method, path);
    const traceparent = req.headers.traceparent?.toString();
    const request: ProxiedRequest = { method, path, fault: fault?.type, ...(traceparent ? { traceparent } : {}) };
    this.requests.push(request);
    this.#events.emit('request', request);
    if (fault?.type === 'flood') {
      req.resume();
      req.on('end', () => {
        res.writeHead(fault.status, { 'content-type': fault.contentType });
        void writeFlood(res, fault.flood).then((report) => {
          this.floods.push({ path, ...report });
          this.#events.emit('flood');
        });
      });
      return;
    }
    if (fault?.type === 'status') {
      req.resume();
      req.on('end', () => {
        res.writeHead(fault.status, {
          'content-type': 'application/json',
          ...(fault.retryAfter === undefined ? {} : { 'retry-after': fault.retryAfter }),
        });
        res.end(JSON.stringify({ detail: fault.detail ?? `Injected ${fault.status}` }));
      });
      return;
    }
    const upstream = http.request(new URL(req.url ?? '/', this.#upstream), {
      method,
      headers: { ...req.headers, host: this.#upstream.host },
      agent: false,
    });
    this.#inFlight.add(upstream);
    upstream.on('close', () => this.#inFlight.delete(upstream));
    // A client that goes away is a client that went away for the upstream too.
    res.on('close', () => upstream.destroy());
    upstream.on('error', () => res.destroy());
    upstream.on('response', (answer) => {
      if (fault?.type === 'silent') {
        answer.resume();
        return;
      }
      if (fault?.type === 'reset-before-response') {
        res.destroy();
        return;
      }
      const headers = { ...answer.headers };
      for (const name of HOP_BY_HOP) delete headers[name];
      res.writeHead(answer.statusCode ?? 502, headers);
      res.flushHeaders();
      if (fault === undefined) {
        answer.pipe(res);
        return;
      }
      const cutAfter = this.#cutter(fault);
      let cutDone = false;
      answer.on('data', (chunk: Buffer) => {
        if (cutDone || res.destroyed || res.writableEnded) return;
        const cut = cutAfter(chunk);
        if (cut === undefined) {
          res.write(chunk);
          return;
        }
        cutDone = true;
        answer.removeAllListeners('data');
        answer.resume();
        const prefix = chunk.subarray(0, cut);
        if (fault.type === 'silent-after-task-id') {
          res.write(prefix);
          return;
        }
        if (fault.type === 'end-after-task-id') {
          res.end(prefix);
          return;
        }
        // Destroy only once the prefix has left, or the cut would also swallow it.
        res.write(prefix, () => res.destroy());
      });
      answer.on('end', () => {
        // After a cut, the fault decides how the response ends; before one, it ends as the upstream's did.
        if (!cutDone && !res.destroyed && !res.writableEnded) res.end();
      });
    });
    req.pipe(upstream);
  }

  /** For a cutting fault: a function that returns, per chunk, the byte offset to cut at, if it is in it. */
  #cutter(fault: OrsFault): (chunk: Buffer) => number | undefined {
    if (fault.type === 'drop-after-bytes') {
      let seen = 0;
      return (chunk) => {
        const cut = fault.bytes - seen;
        seen += chunk.length;
        return cut <= chunk.length ? Math.max(0, cut) : undefined;
      };
    }
    // Feed one byte at a time so the dispatch of `task_id` pins the exact byte to cut after; the
    // frames before and including it are ASCII, so a byte is a character there.
    let dispatched = false;
    const parser = createParser({
      onEvent: (event) => {
        if (event.event === 'task_id') dispatched = true;
      },
    });
    return (chunk) => {
      for (let index = 0; index < chunk.length; index++) {
        parser.feed(String.fromCharCode(chunk[index] ?? 0));
        if (dispatched) return index + 1;
      }
      return undefined;
    };
  }
}
