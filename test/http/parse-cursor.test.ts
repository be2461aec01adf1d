import { describe, expect, it } from 'vitest';
import { BadRequestError } from '../../src/errors.js';
import { parseCursor } from '../../src/http/parse-cursor.js';

describe('the resume cursor', () => {
  it('starts from the beginning without a cursor', () => {
    expect(parseCursor(undefined, undefined)).toBe(-1);
  });

  it('prefers Last-Event-ID over ?after=', () => {
    expect(parseCursor('7', '3')).toBe(7);
    expect(parseCursor(undefined, '3')).toBe(3);
  });

  it.each(['abc', '1.5', '1e3', '-2', '7\r\nSet-Cookie: x=1', ' '])('rejects %j with a 400', (raw) => {
    expect(() => parseCursor(raw, undefined)).toThrow(BadRequestError);
  });
});
