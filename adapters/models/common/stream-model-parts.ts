import { RunbridgeError } from '../../../src/errors.js';
import type { ModelPart } from '../../../src/models/model.js';
import { type LinkedAbortSignal, linkAbortSignal } from './link-abort-signal.js';

/**
 * Turns one vendor stream into {@link ModelPart}s. `push` maps one chunk or event (assembling
 * tool-call arguments internally); `end` runs once the vendor stream is over and returns the closing
 * parts (`usage`, `token-data`, `finish`) — or throws a `model_stream_interrupted` `ModelError`
 * when the stream stopped before the vendor's last event. Both may throw a `ModelError` for an
 * error the vendor reports inside the stream.
 */
export interface StreamMapper<TChunk> {
  /** The parts one vendor chunk or event produces, in order (often none). */
  push(chunk: TChunk): ModelPart[];
  /** The closing parts, once the vendor stream is over; throws when it stopped too early. */
  end(): ModelPart[];
}

/** How {@link streamModelParts} opens, maps and fails one model call. */
export interface StreamModelPartsOptions<TChunk> {
  /** The caller's signal; its abort ends the call and is rethrown as its reason. */
  signal: AbortSignal;
  /** Sends the request (the SDK retries what it retries) and resolves once the stream has begun. */
  open(signal: AbortSignal): Promise<AsyncIterable<TChunk>>;
  /** A fresh mapper for this one call. */
  mapper: StreamMapper<TChunk>;
  /** A vendor error → `ModelError`; `phase` tells a refused request from a stream that broke off. */
  toModelError(error: unknown, phase: 'request' | 'stream'): Error;
}

/**
 * Runs one streaming model call and yields its parts. Errors become `ModelError`s through
 * `toModelError` (a `RunbridgeError` passes through as is); an abort of `signal` — before, during
 * or after the request — rejects with the signal's reason, never a `ModelError`, even where the SDK
 * ends its stream quietly on abort. Stopping the iteration early cancels the HTTP request. Nothing is
 * sent before the first `next()`. For one consumer awaiting each part in turn, as `for await` does.
 */
export function streamModelParts<TChunk>(options: StreamModelPartsOptions<TChunk>): AsyncIterableIterator<ModelPart> {
  return new ModelPartStream(options);
}

/** What the iteration answers once it is over. */
const DONE: IteratorResult<ModelPart, undefined> = Object.freeze({ value: undefined, done: true });

/**
 * The iterator behind {@link streamModelParts}. Written out rather than as an async generator: each
 * `yield` of a generator costs several promise hops, about 8 % of a whole model call for a turn of a
 * few dozen parts (`bench/profiling-log.md`). Parts a chunk maps to are served from a buffer; the
 * next chunk is pulled only when the buffer is empty, by one `then` on the vendor stream with
 * handlers made once per call: an async function per chunk cost a promise and a frame more each.
 */
class ModelPartStream<TChunk> implements AsyncIterableIterator<ModelPart> {
  readonly #options: StreamModelPartsOptions<TChunk>;
  #state: 'new' | 'streaming' | 'done' = 'new';
  #link: LinkedAbortSignal | undefined;
  /** The vendor stream while it is open (cancelled when the iteration ends before it does). */
  #chunks: AsyncIterator<TChunk> | undefined;
  #parts: ModelPart[] = [];
  #served = 0;

  constructor(options: StreamModelPartsOptions<TChunk>) {
    this.#options = options;
  }

  [Symbol.asyncIterator](): this {
    return this;
  }

  next(): Promise<IteratorResult<ModelPart, undefined>> {
    if (this.#served < this.#parts.length) return Promise.resolve({ value: this.#parts[this.#served++]!, done: false });
    if (this.#state === 'done') return Promise.resolve(DONE);
    if (this.#state === 'new') return this.#open().then(() => this.next(), this.#abandon);
    return this.#chunks!.next().then(this.#onChunk, this.#onStreamError);
  }

  /** Stops early: cancels the HTTP request and stops following the caller's signal. */
  async return(): Promise<IteratorResult<ModelPart, undefined>> {
    await this.#close();
    return DONE;
  }

  /** Sends the request; the stream has begun when it resolves. */
  async #open(): Promise<void> {
    const { signal } = this.#options;
    signal.throwIfAborted();
    this.#link = linkAbortSignal(signal);
    this.#state = 'streaming';
    try {
      this.#chunks = (await this.#options.open(this.#link.signal))[Symbol.asyncIterator]();
    } catch (error) {
      throw this.#fail(error, 'request');
    }
  }

  /** One vendor chunk mapped to its parts, served from the first; or the end of the stream. */
  readonly #onChunk = (
    chunk: IteratorResult<TChunk>,
  ): IteratorResult<ModelPart, undefined> | Promise<IteratorResult<ModelPart, undefined>> => {
    const { signal, mapper } = this.#options;
    let parts: ModelPart[];
    if (!chunk.done) {
      try {
        parts = mapper.push(chunk.value);
      } catch (error) {
        return this.#abandon(this.#fail(error, 'stream'));
      }
      if (parts.length === 0) return this.next();
      this.#parts = parts;
      this.#served = 1;
      return { value: parts[0]!, done: false };
    }
    this.#chunks = undefined;
    // Both SDKs end their stream without an error when the request is aborted.
    if (signal.aborted) return this.#abandon(signal.reason);
    try {
      parts = mapper.end();
    } catch (error) {
      return this.#abandon(error);
    }
    return this.#close().then(() => {
      // Served after the end, so the iteration is over once they are.
      this.#parts = parts;
      this.#served = 0;
      return this.next();
    });
  };

  readonly #onStreamError = (error: unknown): Promise<never> => {
    this.#chunks = undefined;
    return this.#abandon(this.#fail(error, 'stream'));
  };

  /** Ends the iteration with `error`, once a vendor stream still open is cancelled. */
  readonly #abandon = (error: unknown): Promise<never> =>
    this.#close().then(() => {
      throw error;
    });

  #fail(error: unknown, phase: 'request' | 'stream'): unknown {
    const { signal } = this.#options;
    if (signal.aborted) return signal.reason;
    if (error instanceof RunbridgeError) return error;
    return this.#options.toModelError(error, phase);
  }

  /** Ends the iteration; a vendor stream still open is cancelled (which ends its HTTP request). */
  async #close(): Promise<void> {
    this.#state = 'done';
    this.#parts = [];
    this.#served = 0;
    this.#link?.release();
    const chunks = this.#chunks;
    this.#chunks = undefined;
    // What a vendor stream throws while being cancelled says nothing the caller needs.
    if (chunks?.return) await chunks.return().catch(() => undefined);
  }
}
