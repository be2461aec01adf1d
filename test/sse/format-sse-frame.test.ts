import { describe, expect, it } from 'vitest';
import { formatSseFields, formatSseFrame } from '../../src/sse/format-sse-frame.js';

describe('formatSseFrame', () => {
  it('writes id, event and data lines ended by a blank line, with LF endings', () => {
    expect(formatSseFrame({ id: 7, event: 'tool.completed', data: '{"a":1}' })).toBe(
      'id: 7\nevent: tool.completed\ndata: {"a":1}\n\n',
    );
  });

  it('splits multi-line data into one data line per line, whatever the line ending', () => {
    expect(formatSseFrame({ data: 'a\r\nb\rc\nd' })).toBe('data: a\ndata: b\ndata: c\ndata: d\n\n');
  });

  it('writes a line break at the very end or start of data as an empty data line, and empty data as one', () => {
    expect(formatSseFrame({ data: 'a\n' })).toBe('data: a\ndata: \n\n');
    expect(formatSseFrame({ data: '\ra' })).toBe('data: \ndata: a\n\n');
    expect(formatSseFrame({ data: '' })).toBe('data: \n\n');
  });

  it('writes a frame in pieces without the blank line that ends it', () => {
    const pieces =
      formatSseFields({ id: 3 }) + formatSseFields({ data: '{"a":1}' }) + formatSseFields({ data: 'b\nc' });
    expect(`${pieces}\n`).toBe('id: 3\ndata: {"a":1}\ndata: b\ndata: c\n\n');
  });

  it('writes comments and retry', () => {
    expect(formatSseFrame({ retry: 3000 })).toBe('retry: 3000\n\n');
    expect(formatSseFrame({ comment: 'keepalive' })).toBe(': keepalive\n\n');
  });

  it('refuses an id or event name that would inject a frame', () => {
    expect(() => formatSseFrame({ id: '1\ndata: x', data: '' })).toThrow(TypeError);
    expect(() => formatSseFrame({ event: 'a\rb', data: '' })).toThrow(TypeError);
    expect(() => formatSseFrame({ event: 'a\0b' })).toThrow(TypeError);
    expect(() => formatSseFields({ id: 'a\nb' })).toThrow(TypeError);
  });
});
