/** A piece of a Markdown text that is lexed on its own: where it starts in the text, and its text. */
export interface MarkdownChunk {
  start: number;
  text: string;
}

/** A text in chunks, and how many of them, from the first, are settled: no text appended later can change them. */
export interface MarkdownChunks {
  chunks: MarkdownChunk[];
  settled: number;
}

/** A list item's marker at the start of a line (after at most three spaces), with what must follow it. */
const LIST_ITEM = /^ {0,3}(?:[-+*]|\d{1,9}[.)])(?:[ \t]|$)/;

/**
 * `text` cut into chunks that lex as they would in the whole text, in one linear pass and without
 * lexing any of it: the careful way to read a text too large, or too hostile, to lex in one piece
 * (markdown-limits.ts). A chunk ends at a blank line followed by a line that starts a new top-level
 * block whatever came before: one at the margin, outside a fenced code block, that opens no list item
 * after one in the chunk (a list goes on past a blank line, with its next item or an indented line).
 * Every chunk but the last is settled, since text added later cannot change it — but for the one before an unfinished
 * last line (a `1` may still turn into `1. item` of the list above). What this loses: a `[ref]` in one
 * chunk does not see its definition in another, and raw HTML that spans a blank line is cut there.
 */
export function markdownChunks(text: string): MarkdownChunks {
  const chunks: MarkdownChunk[] = [];
  let start = 0;
  let fence: string | undefined;
  let blank = false;
  /** The chunk under way has a line that is not blank: only then may it end. */
  let filled = false;
  /** The chunk under way has a list item: a list that a later item, past a blank line, may go on. */
  let listed = false;
  let finished = true;
  for (let at = 0; at < text.length; ) {
    let end = text.indexOf('\n', at);
    if (end < 0) {
      end = text.length;
      finished = false;
    }
    const line = text.slice(at, end);
    const opening = /^ {0,3}(`{3,}|~{3,})/.exec(line)?.[1];
    if (fence !== undefined) {
      if (
        opening !== undefined &&
        opening[0] === fence[0] &&
        opening.length >= fence.length &&
        /^ {0,3}[`~]+[ \t]*$/.test(line)
      ) {
        fence = undefined;
      }
    } else if (line.trim() === '') {
      blank = true;
    } else {
      const item = LIST_ITEM.test(line);
      if (blank && filled && !/^[ \t]/.test(line) && !(item && listed)) {
        chunks.push({ start, text: text.slice(start, at) });
        start = at;
        listed = false;
      }
      blank = false;
      filled = true;
      listed ||= item;
      if (opening !== undefined) fence = opening;
    }
    at = end + 1;
  }
  chunks.push({ start, text: text.slice(start) });
  const unfinished = !finished && start > 0 && start === text.lastIndexOf('\n') + 1;
  return { chunks, settled: chunks.length - (unfinished ? 2 : 1) };
}
