import { describe, expect, it } from 'vitest';
import { ParseError, readSseEvents, type SseEvent } from '../../src/sse/read-sse-events.js';

const encoder = new TextEncoder();

/** A body that delivers `pieces` as separate chunks (strings are UTF-8 encoded), then ends. */
function bodyOf(pieces: Array<string | Uint8Array>): ReadableStream<Uint8Array> {
  return new ReadableStream({
    start(controller) {
      for (const piece of pieces) controller.enqueue(typeof piece === 'string' ? encoder.encode(piece) : piece);
      controller.close();
    },
  });
}

async function collect(body: ReadableStream<Uint8Array>, onActivity?: (bytes: number) => void): Promise<SseEvent[]> {
  const events: SseEvent[] = [];
  for await (const event of readSseEvents(body, onActivity ? { onActivity } : {})) events.push(event);
  return events;
}

describe('readSseEvents', () => {
  it('parses frames with CRLF, LF and CR line endings alike', async () => {
    const events = await collect(
      bodyOf(['event: a\r\ndata: one\r\n\r\n', 'event: b\ndata: two\n\n', 'event: c\rdata: three\r\r']),
    );
    expect(events).toEqual([
      { event: 'a', data: 'one' },
      { event: 'b', data: 'two' },
      { event: 'c', data: 'three' },
    ]);
  });

  it('names an event without an event field "message" and keeps its id', async () => {
    expect(await collect(bodyOf(['id: 7\ndata: hi\n\n']))).toEqual([{ event: 'message', data: 'hi', id: '7' }]);
  });

  it('strips exactly one leading space of a data line', async () => {
    const events = await collect(bodyOf(['event: chunk\r\ndata:   two spaces kept\r\n\r\n', 'data:none\n\n']));
    expect(events.map((event) => event.data)).toEqual(['  two spaces kept', 'none']);
  });

  it('joins multi-line data with a newline', async () => {
    const events = await collect(bodyOf(['event: error\ndata: line one\ndata: line two\n\n']));
    expect(events).toEqual([{ event: 'error', data: 'line one\nline two' }]);
  });

  it('ignores comments, retry fields and unknown fields', async () => {
    const events = await collect(
      bodyOf([': ping - 2025-06-01 12:00:00.000000+00:00\r\n\r\n', 'retry: 3000\nfoo: bar\n\n', 'data: x\n\n']),
    );
    expect(events).toEqual([{ event: 'message', data: 'x' }]);
  });

  it('hands every valid retry field to onRetry, alone on its frame or on a frame with data', async () => {
    const retries: number[] = [];
    const events: SseEvent[] = [];
    const body = bodyOf(['retry: 3000\n\n', 'retry: 1500\nid: 0\nevent: a\ndata: x\n\n', 'retry: soon\ndata: y\n\n']);
    for await (const event of readSseEvents(body, { onRetry: (ms) => retries.push(ms) })) events.push(event);
    expect(retries).toEqual([3000, 1500]);
    expect(events).toEqual([
      { event: 'a', data: 'x', id: '0' },
      { event: 'message', data: 'y' },
    ]);
  });

  it('reports activity for every chunk, comments included, before any event is dispatched', async () => {
    const activity: number[] = [];
    const events = await collect(bodyOf([': ping\r\n\r\n', ': ping\r\n\r\n', 'data: done\n\n']), (bytes) =>
      activity.push(bytes),
    );
    expect(activity).toEqual([10, 10, 12]);
    expect(events).toHaveLength(1);
  });

  it('decodes UTF-8 sequences split across chunks and frames split anywhere', async () => {
    const bytes = encoder.encode('event: end\r\ndata: {"text": "caf\u00e9 \u{1F642}"}\r\n\r\n');
    const pieces = Array.from({ length: bytes.length }, (_, index) => bytes.subarray(index, index + 1));
    expect(await collect(bodyOf(pieces))).toEqual([{ event: 'end', data: '{"text": "café 🙂"}' }]);
  });

  it('drops an unfinished frame at the end of the stream', async () => {
    const events = await collect(bodyOf(['event: task_id\r\ndata: abc\r\n\r\n', 'event: end\r\ndata: {"ok": tr']));
    expect(events).toEqual([{ event: 'task_id', data: 'abc' }]);
  });

  it('throws the read error of a stream that breaks', async () => {
    const failure = new Error('socket closed');
    let pulls = 0;
    const body = new ReadableStream<Uint8Array>({
      pull(controller) {
        // Erroring a stream discards what it still queues, so the error comes on the second read.
        if (pulls++ === 0) controller.enqueue(encoder.encode('data: first\n\n'));
        else controller.error(failure);
      },
    });
    const events: SseEvent[] = [];
    await expect(
      (async () => {
        for await (const event of readSseEvents(body)) events.push(event);
      })(),
    ).rejects.toBe(failure);
    expect(events).toEqual([{ event: 'message', data: 'first' }]);
  });

  it('cancels the stream when the consumer stops early', async () => {
    let cancelled: unknown = 'not cancelled';
    const body = new ReadableStream<Uint8Array>({
      pull(controller) {
        controller.enqueue(encoder.encode('data: again\n\n'));
      },
      cancel(reason) {
        cancelled = reason;
      },
    });
    for await (const event of readSseEvents(body)) {
      expect(event.data).toBe('again');
      break;
    }
    expect(cancelled).toBeUndefined();
  });

  it('throws a ParseError when a line outgrows maxBufferSize', async () => {
    const body = bodyOf(['data: ', 'x'.repeat(100)]);
    const reading = (async () => {
      for await (const event of readSseEvents(body, { maxBufferSize: 50 })) void event;
    })();
    await expect(reading).rejects.toBeInstanceOf(ParseError);
  });
});
