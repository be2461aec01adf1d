import type { IncomingMessage } from 'node:http';
import { BodyCapError, type BodyCaps } from './body-caps.js';
import { CappedBody } from './capped-body.js';

/**
 * A `node:http` answer as a fetch `Response` is read: `status`, `statusText`, `ok`, `url`, `headers`
 * (a real `Headers`), `bodyUsed`, `text()`, `json()`, `arrayBuffer()`, and `body` — the answer itself,
 * an async iterable of bytes, which the ORS client and both model SDKs read as they read a
 * `ReadableStream` (and cancel by ending its iteration). With `caps` (the model SDKs' answers), `body`
 * is read through a {@link CappedBody}; the whole body of an error status is read up to
 * `caps.maxErrorBytes`, the rest left unread and the text saying so; any other whole body fails past
 * `caps.maxAnswerBytes`.
 */
export class NodeHttpResponse {
  readonly status: number;
  readonly statusText: string;
  readonly ok: boolean;
  readonly redirected = false;
  readonly type = 'basic';
  readonly body: AsyncIterable<Uint8Array>;
  readonly #message: IncomingMessage;
  readonly #caps: BodyCaps | undefined;
  #headers: Headers | undefined;
  #used = false;

  constructor(
    readonly url: string,
    message: IncomingMessage,
    caps?: BodyCaps,
  ) {
    this.#message = message;
    this.#caps = caps;
    this.body = caps === undefined ? message : new CappedBody(message, caps);
    this.status = message.statusCode ?? 0;
    this.statusText = message.statusMessage ?? '';
    this.ok = this.status >= 200 && this.status < 300;
  }

  /**
   * Made on first use: a `Headers` validates every name and value it is given, which showed in the
   * profile of a tool call that never reads them (`bench/profiling-log.md`).
   */
  get headers(): Headers {
    if (this.#headers === undefined) {
      const headers = new Headers();
      const raw = this.#message.rawHeaders;
      for (let i = 0; i < raw.length; i += 2) headers.append(raw[i]!, raw[i + 1]!);
      this.#headers = headers;
    }
    return this.#headers;
  }

  /** True once the whole answer has arrived (its end may still be unread). */
  get complete(): boolean {
    return this.#message.complete;
  }

  get bodyUsed(): boolean {
    return this.#used;
  }

  async arrayBuffer(): Promise<ArrayBuffer> {
    const bytes = await this.#read();
    return bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer;
  }

  async text(): Promise<string> {
    return (await this.#read()).toString('utf8');
  }

  async json(): Promise<unknown> {
    return JSON.parse(await this.text());
  }

  #read(): Promise<Buffer> {
    if (this.#used) return Promise.reject(new TypeError('Body is unusable: Body has already been read'));
    this.#used = true;
    const caps = this.#caps;
    if (caps === undefined) return readBody(this.#message, Number.POSITIVE_INFINITY, 'whole');
    if (this.status >= 400) return readBody(this.#message, caps.maxErrorBytes, 'cut');
    return readBody(this.#message, caps.maxAnswerBytes, 'fail');
  }
}

/**
 * The body of `res`, at most `limit` bytes of it: past them reading stops (which closes the
 * connection) and the body is either `cut` — what was read, and a line saying the rest was not — or
 * the read `fail`s with a {@link BodyCapError}.
 */
async function readBody(res: IncomingMessage, limit: number, past: 'whole' | 'cut' | 'fail'): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let bytes = 0;
  for await (const chunk of res as AsyncIterable<Buffer>) {
    if (bytes + chunk.length > limit) {
      if (past === 'fail') throw new BodyCapError('answer', limit);
      chunks.push(chunk.subarray(0, limit - bytes), Buffer.from(`\n… (cut: the body went on past ${limit} bytes)`));
      break;
    }
    bytes += chunk.length;
    chunks.push(chunk);
  }
  return Buffer.concat(chunks);
}
