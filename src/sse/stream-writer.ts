import type { ServerResponse } from 'node:http';
import { drained } from './drained.js';
import { SSE_HEADERS, SSE_KEEPALIVE, SSE_RETRY_LINE } from './sse-headers.js';
import type { StopSignal } from './stop-signal.js';

/** How a kind of stream opens and shows it is alive: SSE's way, or a line format's such as NDJSON. */
export interface StreamDialect {
  readonly headers: Readonly<Record<string, string>>;
  /** Written once, just before the first write: SSE's `retry:` line (never a frame of its own). */
  readonly first: string;
  /** Written while nothing else is, so proxies and clients see the stream is alive. */
  readonly keepalive: string;
}

/** Every SSE stream the bridge serves: its headers, the `retry:` line and the keep-alive comment. */
export const SSE_DIALECT: StreamDialect = { headers: SSE_HEADERS, first: SSE_RETRY_LINE, keepalive: SSE_KEEPALIVE };

export interface StreamWriterOptions {
  dialect: StreamDialect;
  /** Headers of this stream besides the dialect's (a format's own, e.g. the AI SDK's). */
  headers?: Readonly<Record<string, string>>;
  /** A reader whose unsent bytes pass this bound is cut off; it resumes from its cursor. */
  bufferBytes: number;
  now?: () => number;
}

/**
 * One reader's stream (docs/protocol.md §3): its headers, the dialect's first line before the first
 * write, its keep-alives, its pacing and the cut-off of a reader that stopped reading. The headers are
 * set at once and go out with the first write, or on their own at {@link open}: a stream with
 * something to send at once (a replay) costs one socket write instead of two (`bench/`, benchmark 1).
 */
export class StreamWriter {
  readonly #res: ServerResponse;
  readonly #dialect: StreamDialect;
  readonly #bufferBytes: number;
  readonly #now: () => number;
  // Whether the headers went out: `res.headersSent` says so from `writeHead` on, sent or not.
  #opened = false;
  #started = false;
  #lastWrite: number;

  constructor(res: ServerResponse, options: StreamWriterOptions) {
    this.#res = res;
    this.#dialect = options.dialect;
    this.#bufferBytes = options.bufferBytes;
    this.#now = options.now ?? Date.now;
    this.#lastWrite = this.#now();
    res.writeHead(200, { ...options.dialect.headers, ...options.headers });
  }

  /** The response is over: ended, cut off, or its client went away. */
  get closed(): boolean {
    return this.#res.destroyed || this.#res.writableEnded;
  }

  /** Sends the headers on their own unless a write took them already: the client sees the stream open. */
  open(): void {
    if (this.#opened) return;
    this.#opened = true;
    this.#res.flushHeaders();
  }

  /**
   * Whether the reader keeps up; one still holding more than `bufferBytes` unsent has stopped reading
   * and is cut off here. Asked before writing more, so one piece larger than the bound (a long final
   * answer, a large record) still reaches a reader that keeps up (docs/protocol.md §3.8).
   */
  keepsUp(): boolean {
    if (this.#res.writableLength <= this.#bufferBytes) return true;
    this.#res.destroy();
    return false;
  }

  /** Writes `text`, after the dialect's first line when it is the first write; nothing for nothing. */
  write(text: string | Buffer): void {
    if (text.length === 0) return;
    if (!this.#started && this.#dialect.first !== '') this.#res.write(this.#dialect.first);
    this.#started = true;
    this.#send(text);
  }

  /** Writes the dialect's keep-alive. */
  keepAlive(): void {
    this.#send(this.#dialect.keepalive);
  }

  /** Writes the keep-alive if nothing was written for `ms`. */
  keepAliveIfQuiet(ms: number): void {
    if (this.#now() - this.#lastWrite >= ms) this.keepAlive();
  }

  /**
   * Resolves once the socket can take more: at once when it can, else when it drains or closes, after
   * `limitMs`, when `signal` aborts or when `until` resolves. A reader that does not drain within the
   * limit is written to anyway, so one that stopped reading reaches the bound and is cut off instead of
   * holding its connection forever.
   */
  async paced(limitMs: number, signal: StopSignal, until?: Promise<void>): Promise<void> {
    if (this.#res.writableNeedDrain) await drained(this.#res, limitMs, signal, until);
  }

  /** Writes `text`, if any, and ends the stream. */
  end(text: string | Buffer = ''): void {
    this.write(text);
    this.#res.end();
  }

  /** Ends a stream that did not end by {@link end}: as one that was open, then closed. */
  close(): void {
    if (this.closed) return;
    this.open();
    this.#res.destroy();
  }

  #send(text: string | Buffer): void {
    this.#opened = true;
    this.#res.write(text);
    this.#lastWrite = this.#now();
  }
}
