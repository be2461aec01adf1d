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

/**
 * The iterator behind {@link streamModelParts}. Written out rather than as an async generator: each
 * `yield` of a generator costs several promise hops, about 8 % of a whole model call for a turn of a
 * few dozen parts (`bench/profiling-log.md`). Parts a chunk maps to are served from a buffer; the
 * next chunk is pulled only when the buffer is empty.
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
    return this.#pull();
  }

  /** Stops early: cancels the HTTP request and stops following the caller's signal. */
  async return(): Promise<IteratorResult<ModelPart, undefined>> {
    await this.#close();
    return { value: undefined, done: true };
  }

  async #pull(): Promise<IteratorResult<ModelPart, undefined>> {
    try {
      while (this.#served >= this.#parts.length) {
        if (this.#state === 'done') return { value: undefined, done: true };
        this.#parts = await this.#more();
        this.#served = 0;
      }
      return { value: this.#parts[this.#served++]!, done: false };
    } catch (error) {
      await this.#close();
      throw error;
    }
  }

  /** The parts of the next step: opening the stream (none), one chunk, or the end. */
  async #more(): Promise<ModelPart[]> {
    const { signal, mapper } = this.#options;
    if (this.#state === 'new') {
      signal.throwIfAborted();
      this.#link = linkAbortSignal(signal);
      this.#state = 'streaming';
      try {
        this.#chunks = (await this.#options.open(this.#link.signal))[Symbol.asyncIterator]();
      } catch (error) {
        throw this.#fail(error, 'request');
      }
      return [];
    }
    let chunk: IteratorResult<TChunk>;
    try {
      chunk = await this.#chunks!.next();
    } catch (error) {
      this.#chunks = undefined;
      throw this.#fail(error, 'stream');
    }
    if (!chunk.done) {
      try {
        return mapper.push(chunk.value);
      } catch (error) {
        throw this.#fail(error, 'stream');
      }
    }
    this.#chunks = undefined;
    // Both SDKs end their stream without an error when the request is aborted.
    signal.throwIfAborted();
    const parts = mapper.end();
    await this.#close();
    return parts;
  }

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
