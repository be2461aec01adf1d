/**
 * Cuts `text` into pieces of at most `size` UTF-16 code units, in order, so that joining them gives
 * `text` back. A cut that would fall between the two halves of a surrogate pair (an emoji, say) moves
 * one unit earlier: a lone half is not valid UTF-8, so the bytes on the wire would be mangled.
 * An empty `text` gives one empty piece, so a caller that writes the last piece as `end` always has
 * one. Throws a `RangeError` when `size` is below 2 (a pair could then never be kept whole).
 */
export function chunkResult(text: string, size = 4096): string[] {
  if (!Number.isInteger(size) || size < 2) {
    throw new RangeError(`chunk size must be an integer of at least 2, got ${size}`);
  }
  const pieces: string[] = [];
  let start = 0;
  while (text.length - start > size) {
    let end = start + size;
    if (isHighSurrogate(text.charCodeAt(end - 1)) && isLowSurrogate(text.charCodeAt(end))) end -= 1;
    pieces.push(text.slice(start, end));
    start = end;
  }
  pieces.push(text.slice(start));
  return pieces;
}

function isHighSurrogate(code: number): boolean {
  return code >= 0xd800 && code <= 0xdbff;
}

function isLowSurrogate(code: number): boolean {
  return code >= 0xdc00 && code <= 0xdfff;
}
