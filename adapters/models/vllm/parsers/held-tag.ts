/**
 * How many characters at the end of `text` could be the start of `tag`, still arriving in the next
 * piece of a stream: what a streaming parser holds back rather than publish as text too early.
 */
export function heldTagLength(text: string, tag: string): number {
  // Compared character by character: a stream calls this for every delta, and slicing allocated.
  next: for (let at = Math.max(0, text.length - tag.length + 1); at < text.length; at++) {
    for (let offset = 0; at + offset < text.length; offset++) {
      if (text.charCodeAt(at + offset) !== tag.charCodeAt(offset)) continue next;
    }
    return text.length - at;
  }
  return 0;
}

/** What {@link cutAtTag} found in the text buffered so far. */
export interface TagCut {
  /** Text before the tag, or all that is surely not part of it when the tag has not come. */
  before: string;
  /** Whether the tag itself was found (and consumed). */
  found: boolean;
  /** What stays buffered: the text after the tag, or the end that may still become the tag. */
  rest: string;
}

/** Cuts `buffer` at the first `tag`; without one, keeps back only what may still become the tag. */
export function cutAtTag(buffer: string, tag: string): TagCut {
  const at = buffer.indexOf(tag);
  if (at >= 0) return { before: buffer.slice(0, at), found: true, rest: buffer.slice(at + tag.length) };
  const held = heldTagLength(buffer, tag);
  return { before: buffer.slice(0, buffer.length - held), found: false, rest: buffer.slice(buffer.length - held) };
}
