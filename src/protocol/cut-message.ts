/** How much of what a model or ORS server said an error message quotes (the bridge's own words around it aside). */
export const QUOTED_CHARS = 2000;

/** How long a run's error message may be when stored and served (`run.failed`, snapshots, lists, records). */
export const ERROR_MESSAGE_CHARS = 4000;

const NOTE = '… (cut)';

/**
 * Characters that end a word as a key or token is written: a value cut between two of them is dropped
 * whole, so a secret the cut runs through cannot survive in part (it would no longer match, and so
 * no longer be redacted).
 */
const WORD_END = /[\s"'`<>()[\]{},;]/u;

/**
 * `text` as at most `maxChars` characters: whole when it fits; otherwise its beginning up to the end of
 * the last whole word that fits, then `… (cut)`. The word the cut runs through is dropped whole, however
 * long, rather than cut in two.
 */
export function cutMessage(text: string, maxChars: number = QUOTED_CHARS): string {
  if (text.length <= maxChars) return text;
  let end = Math.max(0, maxChars - NOTE.length);
  while (end > 0 && !WORD_END.test(text[end]!) && !WORD_END.test(text[end - 1]!)) end--;
  return `${text.slice(0, end)}${NOTE}`;
}
