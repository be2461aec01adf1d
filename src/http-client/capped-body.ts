import type { IncomingMessage } from 'node:http';
import { BodyCapError, type BodyCaps } from './body-caps.js';

const DONE: IteratorResult<Buffer, undefined> = Object.freeze({ value: undefined, done: true });
const LF = 0x0a;
const CR = 0x0d;
/** The blank lines that end a server-sent event, as the SDKs' decoders find them. */
const EVENT_ENDS = [Buffer.from('\n\n'), Buffer.from('\r\r'), Buffer.from('\r\n\r\n')];
/** The one an event ends with when no carriage return was sent. */
const LF_ONLY = EVENT_ENDS.slice(0, 1);
/** The longest of them, less one: what of the bytes before a chunk an event's end may start in. */
const SEAM = 3;

/**
 * The body of an answer as the model SDKs read it: the bytes of `message`, handed over whole events at
 * a time. An event split across chunks is held here — each chunk looked at once, the pieces joined
 * once when its end arrives — because the SDKs join and search again everything they hold on every
 * chunk, which costs the square of an unfinished event's size on the only thread. Past
 * `caps.maxEventBytes` of one event, or `caps.maxAnswerBytes` of the whole answer, reading stops, the
 * connection is closed and the read fails with a {@link BodyCapError}. Ending the iteration early
 * closes the connection too.
 */
export class CappedBody implements AsyncIterableIterator<Buffer> {
  readonly #message: IncomingMessage;
  readonly #caps: BodyCaps;
  #source: AsyncIterator<Buffer> | undefined;
  /** Bytes since the last event's end, not handed over yet. */
  #pending: Buffer[] = [];
  #pendingBytes = 0;
  #bytes = 0;
  /** The last bytes read (at most {@link SEAM}), where an event's end split across two chunks begins. */
  #seam: Buffer = Buffer.alloc(0);
  #done = false;

  constructor(message: IncomingMessage, caps: BodyCaps) {
    this.#message = message;
    this.#caps = caps;
  }

  [Symbol.asyncIterator](): this {
    return this;
  }

  next(): Promise<IteratorResult<Buffer, undefined>> {
    if (this.#done) return Promise.resolve(DONE);
    this.#source ??= this.#message[Symbol.asyncIterator]();
    return this.#source.next().then(this.#onChunk);
  }

  /** Stops reading: the connection is closed. */
  async return(): Promise<IteratorResult<Buffer, undefined>> {
    this.#done = true;
    this.#pending = [];
    if (this.#source?.return) await this.#source.return();
    else this.#message.destroy();
    return DONE;
  }

  readonly #onChunk = (
    result: IteratorResult<Buffer>,
  ): IteratorResult<Buffer, undefined> | Promise<IteratorResult<Buffer, undefined>> => {
    if (result.done) {
      this.#done = true;
      if (this.#pendingBytes === 0) return DONE;
      return { value: this.#take(Buffer.alloc(0)), done: false };
    }
    const chunk = result.value;
    this.#bytes += chunk.length;
    if (this.#bytes > this.#caps.maxAnswerBytes) throw this.#fail('answer', this.#caps.maxAnswerBytes);
    const last = this.#lastEventEnd(chunk);
    if (last < 0) {
      this.#pending.push(chunk);
      this.#pendingBytes += chunk.length;
      return this.next();
    }
    const whole = this.#take(chunk.subarray(0, last));
    if (last < chunk.length) {
      this.#pending.push(chunk.subarray(last));
      this.#pendingBytes = chunk.length - last;
    }
    return { value: whole, done: false };
  };

  /**
   * Where the last event that ends in `chunk` ends (-1: none does), each event's size checked against
   * the cap on the way; also the bytes after it, which wait for their end.
   */
  #lastEventEnd(chunk: Buffer): number {
    const max = this.#caps.maxEventBytes;
    let start = -this.#pendingBytes;
    let last = -1;
    const withCr = chunk.includes(CR) || this.#seam.includes(CR);
    let end = this.#seamEnd(chunk, withCr);
    if (end < 0) end = nextEventEnd(chunk, 0, withCr);
    while (end >= 0) {
      if (end - start > max) throw this.#fail('event', max);
      start = end;
      last = end;
      end = nextEventEnd(chunk, end, withCr);
    }
    if (chunk.length - start > max) throw this.#fail('event', max);
    this.#seam = Buffer.from(
      chunk.length >= SEAM ? chunk.subarray(chunk.length - SEAM) : Buffer.concat([this.#seam, chunk]).subarray(-SEAM),
    );
    return last;
  }

  /** The end (in `chunk`) of an event whose blank line began in the bytes before it; -1 if none. */
  #seamEnd(chunk: Buffer, withCr: boolean): number {
    const before = this.#seam.length;
    if (before === 0 || (chunk[0] !== LF && chunk[0] !== CR)) return -1;
    const probe = Buffer.concat([this.#seam, chunk.subarray(0, SEAM)]);
    let found = -1;
    for (const mark of withCr ? EVENT_ENDS : LF_ONLY) {
      for (let at = Math.max(0, before - mark.length + 1); at < before; at++) {
        const end = at + mark.length;
        if (end > before && end <= probe.length && probe.subarray(at, end).equals(mark)) {
          if (found < 0 || end - before < found) found = end - before;
          break;
        }
      }
    }
    return found;
  }

  /** The bytes held, followed by `head`, as one buffer; nothing is held after. */
  #take(head: Buffer): Buffer {
    const pending = this.#pending;
    this.#pending = [];
    this.#pendingBytes = 0;
    if (pending.length === 0) return head;
    if (head.length > 0) pending.push(head);
    return pending.length === 1 ? pending[0]! : Buffer.concat(pending);
  }

  #fail(cap: 'event' | 'answer', limit: number): BodyCapError {
    this.#done = true;
    this.#pending = [];
    const error = new BodyCapError(cap, limit);
    this.#message.destroy();
    return error;
  }
}

/** Where the first event ending in `chunk` at or after `from` ends; -1 if none. */
function nextEventEnd(chunk: Buffer, from: number, withCr: boolean): number {
  let found = -1;
  for (const mark of withCr ? EVENT_ENDS : LF_ONLY) {
    const at = chunk.indexOf(mark, from);
    if (at >= 0 && (found < 0 || at + mark.length < found)) found = at + mark.length;
  }
  return found;
}
