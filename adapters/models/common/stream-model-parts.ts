import { RunbridgeError } from '../../../src/errors.js';
import type { ModelPart } from '../../../src/models/model.js';
import { linkAbortSignal } from './link-abort-signal.js';

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
 * ends its stream quietly on abort. Stopping the iteration early cancels the HTTP request.
 */
export async function* streamModelParts<TChunk>(
  options: StreamModelPartsOptions<TChunk>,
): AsyncGenerator<ModelPart, void, undefined> {
  const { signal, mapper } = options;
  signal.throwIfAborted();
  const link = linkAbortSignal(signal);
  const fail = (error: unknown, phase: 'request' | 'stream'): unknown => {
    if (signal.aborted) return signal.reason;
    if (error instanceof RunbridgeError) return error;
    return options.toModelError(error, phase);
  };
  try {
    let chunks: AsyncIterable<TChunk>;
    try {
      chunks = await options.open(link.signal);
    } catch (error) {
      throw fail(error, 'request');
    }
    try {
      for await (const chunk of chunks) {
        for (const part of mapper.push(chunk)) yield part;
      }
    } catch (error) {
      throw fail(error, 'stream');
    }
    // Both SDKs end their stream without an error when the request is aborted.
    signal.throwIfAborted();
    for (const part of mapper.end()) yield part;
  } finally {
    link.release();
  }
}
