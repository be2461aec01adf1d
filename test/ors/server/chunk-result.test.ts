import { describe, expect, it } from 'vitest';
import { chunkResult } from '../../../src/ors/server/chunk-result.js';

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

describe('chunkResult', () => {
  it('leaves a text that fits in one piece whole', () => {
    expect(chunkResult('{"ok": true}', 4096)).toEqual(['{"ok": true}']);
  });

  it('gives one empty piece for an empty text, so there is always a last piece to send as end', () => {
    expect(chunkResult('', 4096)).toEqual(['']);
  });

  it('cuts every size characters and the pieces join back to the text', () => {
    const text = 'abcdefghij';
    expect(chunkResult(text, 4)).toEqual(['abcd', 'efgh', 'ij']);
    expect(chunkResult(text, 5)).toEqual(['abcde', 'fghij']);
  });

  it('moves a cut that would split a surrogate pair one unit earlier', () => {
    const text = `${'a'.repeat(4095)}😀${'b'.repeat(10)}`;
    const pieces = chunkResult(text, 4096);
    expect(pieces).toEqual(['a'.repeat(4095), `😀${'b'.repeat(10)}`]);
    expect(pieces.join('')).toBe(text);
  });

  it('never leaves a lone surrogate at either end of a piece, even for a text of nothing but emoji', () => {
    const text = '😀🎉'.repeat(50);
    for (const size of [2, 3, 5, 7]) {
      const pieces = chunkResult(text, size);
      expect(pieces.join('')).toBe(text);
      for (const piece of pieces) {
        expect(piece.length).toBeLessThanOrEqual(size);
        expect(piece).not.toMatch(LONE_SURROGATE);
      }
    }
  });

  it('refuses a size below 2, which could not keep a pair whole', () => {
    expect(() => chunkResult('abc', 1)).toThrow(RangeError);
    expect(() => chunkResult('abc', 2.5)).toThrow(RangeError);
  });
});
