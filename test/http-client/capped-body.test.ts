import type { IncomingMessage } from 'node:http';
import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { BodyCapError, type BodyCaps } from '../../src/http-client/body-caps.js';
import { CappedBody } from '../../src/http-client/capped-body.js';

/**
 * The body the model SDKs read (src/http-client/capped-body.ts): the same bytes, handed over whole
 * events at a time however the network split them, and never more than the caps let through.
 */

const ROOMY: BodyCaps = { maxEventBytes: 1024, maxAnswerBytes: 1024 * 1024, maxErrorBytes: 64 };

/** A message that arrives as exactly these chunks. */
function arriving(chunks: string[]): IncomingMessage & { destroyed: boolean } {
  return Readable.from(chunks.map((chunk) => Buffer.from(chunk))) as unknown as IncomingMessage & {
    destroyed: boolean;
  };
}

async function read(body: CappedBody): Promise<string[]> {
  const pieces: string[] = [];
  for await (const piece of body) pieces.push(piece.toString());
  return pieces;
}

/** True when `text` ends where a server-sent event ends. */
function endsAnEvent(text: string): boolean {
  return text.endsWith('\n\n') || text.endsWith('\r\r') || text.endsWith('\r\n\r\n');
}

describe('the capped body of a model answer', () => {
  it.each([
    ['LF', 'data: {"a":1}\n\nevent: e\ndata: {"b":2}\n\n: ping\n\ndata: [DONE]\n\n'],
    ['CRLF', 'data: {"a":1}\r\n\r\nevent: e\r\ndata: {"b":2}\r\n\r\ndata: [DONE]\r\n\r\n'],
    ['CR', 'data: {"a":1}\r\revent: e\rdata: {"b":2}\r\rdata: [DONE]\r\r'],
  ])('hands over the same %s stream in whole events, wherever the network splits it', async (_ends, stream) => {
    for (let first = 1; first < stream.length; first++) {
      for (const second of [first + 1, first + 2, first + 3, first + 7]) {
        if (second >= stream.length) continue;
        const chunks = [stream.slice(0, first), stream.slice(first, second), stream.slice(second)];
        const pieces = await read(new CappedBody(arriving(chunks), ROOMY));
        expect(pieces.join('')).toBe(stream);
        for (const piece of pieces) expect(endsAnEvent(piece), JSON.stringify({ chunks, pieces })).toBe(true);
      }
    }
  });

  it('hands over what follows the last event when the answer ends', async () => {
    expect(await read(new CappedBody(arriving(['data: 1\n\ndata: 2', ' and more']), ROOMY))).toEqual([
      'data: 1\n\n',
      'data: 2 and more',
    ]);
  });

  it.each([
    ['a line without a newline', ['data: ', 'x'.repeat(600), 'x'.repeat(600)]],
    ['an event of many lines without its blank line', ['data: 1\n\n', 'data: x\n'.repeat(80), 'data: x\n'.repeat(80)]],
    ['an event inside one big chunk', [`data: ${'x'.repeat(2000)}\n\ndata: 1\n\n`]],
  ])('fails past the event cap on %s and closes the connection', async (_what, chunks) => {
    const message = arriving(chunks);
    const error = await read(new CappedBody(message, ROOMY)).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(BodyCapError);
    expect(error).toMatchObject({ cap: 'event', limit: 1024 });
    expect(message.destroyed).toBe(true);
  });

  it('takes events up to the cap itself, each counted from its own start', async () => {
    const event = `data: ${'x'.repeat(1024 - 'data: \n\n'.length)}\n\n`;
    expect(event).toHaveLength(1024);
    const pieces = await read(new CappedBody(arriving([event.slice(0, 500), event.slice(500) + event]), ROOMY));
    expect(pieces.join('')).toBe(event + event);
  });

  it('fails past the answer cap however small its events', async () => {
    const message = arriving(Array.from({ length: 200 }, () => 'data: 1\n\n'));
    const error = await read(new CappedBody(message, { ...ROOMY, maxAnswerBytes: 1000 })).catch((caught) => caught);
    expect(error).toMatchObject({ name: 'BodyCapError', cap: 'answer', limit: 1000 });
    expect(message.destroyed).toBe(true);
  });

  it('closes the connection when the reader stops early', async () => {
    const message = arriving(['data: 1\n\n', 'data: 2\n\n']);
    for await (const _piece of new CappedBody(message, ROOMY)) break;
    expect(message.destroyed).toBe(true);
  });
});
