import { createParser, type ParseError } from 'eventsource-parser';

/** Re-exported so callers can recognise a `maxBufferSize` overflow without importing the parser. */
export { ParseError } from 'eventsource-parser';

/** One dispatched Server-Sent Event. */
export interface SseEvent {
  /** The `event:` field; `'message'` when the frame named none, as a browser EventSource reports it. */
  event: string;
  /** Every `data:` line of the frame (one leading space stripped from each), joined with `\n`. */
  data: string;
  /** The frame's own `id:` field, when it had one. */
  id?: string;
}

/** Options of {@link readSseEvents}. */
export interface ReadSseEventsOptions {
  /**
   * Called with the byte count of every non-empty chunk read from the stream, before it is parsed —
   * comments and partial frames included. Idle timers hang off this: a server's `: ping` comment
   * proves the connection is alive even though it dispatches no event.
   */
  onActivity?: (bytes: number) => void;
  /**
   * Most characters one unfinished line or event may hold; past it, iteration throws
   * eventsource-parser's `ParseError` with `type: 'max-buffer-size-exceeded'`. Unbounded when absent.
   */
  maxBufferSize?: number;
  /**
   * Called with the reconnection delay in milliseconds whenever the stream sends a valid `retry:`
   * field, whether on a frame of its own or on a frame that also carries data.
   */
  onRetry?: (ms: number) => void;
}

/**
 * Reads `body` (a fetch response body, or a Node stream such as a `node:http` response) as Server-Sent Events and yields each dispatched event in
 * order. Follows the SSE parsing rules: CRLF, LF or CR line endings, comments skipped, `retry:` handed
 * to `onRetry` only, frames without `data:` lines not dispatched, and an unfinished frame at the end
 * of the stream dropped (a cut-off frame is not an event). UTF-8 sequences split across chunks are decoded
 * correctly. A read error (network failure, abort) is thrown from the iteration as it is. Leaving the
 * loop early cancels the stream, which closes the underlying connection.
 */
export async function* readSseEvents(
  body: ReadableStream<Uint8Array> | AsyncIterable<Uint8Array>,
  options: ReadSseEventsOptions = {},
): AsyncGenerator<SseEvent, void, undefined> {
  const ready: SseEvent[] = [];
  let overflow: ParseError | undefined;
  const parser = createParser({
    onEvent: (message) => {
      ready.push({
        event: message.event ?? 'message',
        data: message.data,
        ...(message.id === undefined ? {} : { id: message.id }),
      });
    },
    onError: (error) => {
      // Unknown fields and bad `retry:` values are ignored by the SSE spec; only an overflow is fatal.
      if (error.type === 'max-buffer-size-exceeded') overflow = error;
    },
    ...(options.onRetry === undefined ? {} : { onRetry: options.onRetry }),
    ...(options.maxBufferSize === undefined ? {} : { maxBufferSize: options.maxBufferSize }),
  });
  const decoder = new TextDecoder();
  const reader = chunkReader(body);
  let finished = false;
  let endsWithCr = false;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) {
        finished = true;
        // The parser holds a final CR back in case an LF follows; at the end of the stream it is a
        // line ending of its own, and may be the blank line that dispatches the last frame.
        if (endsWithCr) parser.feed('\n');
        for (const event of ready.splice(0)) yield event;
        return;
      }
      if (value.byteLength === 0) continue;
      options.onActivity?.(value.byteLength);
      const text = decoder.decode(value, { stream: true });
      if (text !== '') endsWithCr = text.endsWith('\r');
      parser.feed(text);
      if (overflow) throw overflow;
      for (const event of ready.splice(0)) yield event;
    }
  } finally {
    if (!finished) {
      // The consumer stopped early or the read failed: release the connection rather than let it
      // linger until the peer gives up. A stream that already errored rejects `cancel`; that is fine.
      await reader.cancel().catch(() => undefined);
    }
    reader.release();
  }
}

/** What {@link readSseEvents} needs of a body: its next chunk, and a way to stop it early. */
interface ChunkReader {
  read(): Promise<{ done: true; value?: undefined } | { done: false; value: Uint8Array }>;
  cancel(): Promise<unknown>;
  release(): void;
}

/**
 * A WHATWG stream is read with its reader (browsers cannot all iterate one); anything else — a Node
 * stream — with its async iterator, whose `return` destroys it.
 */
function chunkReader(body: ReadableStream<Uint8Array> | AsyncIterable<Uint8Array>): ChunkReader {
  if ('getReader' in body) {
    const reader = body.getReader();
    return {
      read: () => reader.read() as ReturnType<ChunkReader['read']>,
      cancel: () => reader.cancel(),
      release: () => reader.releaseLock(),
    };
  }
  const iterator = body[Symbol.asyncIterator]();
  return {
    read: () => iterator.next() as ReturnType<ChunkReader['read']>,
    cancel: async () => iterator.return?.(),
    release: () => undefined,
  };
}
