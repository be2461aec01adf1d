import type { IncomingMessage } from 'node:http';

/**
 * A `node:http` answer as a fetch `Response` is read: `status`, `statusText`, `ok`, `url`, `headers`
 * (a real `Headers`), `bodyUsed`, `text()`, `json()`, `arrayBuffer()`, and `body` — the answer itself,
 * an async iterable of bytes, which the ORS client and both model SDKs read as they read a
 * `ReadableStream` (and cancel by ending its iteration).
 */
export class NodeHttpResponse {
  readonly status: number;
  readonly statusText: string;
  readonly ok: boolean;
  readonly redirected = false;
  readonly type = 'basic';
  #headers: Headers | undefined;
  #used = false;

  constructor(
    readonly url: string,
    readonly body: IncomingMessage,
  ) {
    this.status = body.statusCode ?? 0;
    this.statusText = body.statusMessage ?? '';
    this.ok = this.status >= 200 && this.status < 300;
  }

  /**
   * Made on first use: a `Headers` validates every name and value it is given, which showed in the
   * profile of a tool call that never reads them (`bench/profiling-log.md`).
   */
  get headers(): Headers {
    if (this.#headers === undefined) {
      const headers = new Headers();
      const raw = this.body.rawHeaders;
      for (let i = 0; i < raw.length; i += 2) headers.append(raw[i]!, raw[i + 1]!);
      this.#headers = headers;
    }
    return this.#headers;
  }

  /** True once the whole answer has arrived (its end may still be unread). */
  get complete(): boolean {
    return this.body.complete;
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
    return readBody(this.body);
  }
}

/** The whole body of `res`. */
async function readBody(res: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of res) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}
