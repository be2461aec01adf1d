/**
 * How much Markdown work the page does for one text, and where (docs/ui.md, Markdown; docs/security.md).
 * marked's cost is not linear in what a model writes: nesting recurses once per level (3 KB of `>`
 * overflows the stack) and runs of emphasis cost the square of their length (300 KB of `_a` took 39 s).
 * So a text is drawn on the page's own thread only when it is small and plain; anything else is drawn
 * in a worker, under a time budget, and a block past a limit is shown as written instead.
 */
export const MARKDOWN_LIMITS = {
  /** The most characters of a text's unsettled tail drawn on the page's own thread; a longer one goes to the worker. */
  syncChars: 4_000,
  /** The most delimiters (`*`, `_`, `~`, `[`, `<`: what marked pairs up, at a cost up to the square of their count) drawn on the page's own thread. */
  syncDelimiters: 200,
  /** Milliseconds of Markdown work the page's own thread may do in one task; once spent, texts go to the worker. */
  syncBudgetMs: 30,
  /** A text whose one draw on the page's thread took longer than this is drawn in the worker from then on (ten times the usual). */
  slowSyncMs: 50,
  /** Quotes and lists nested deeper than this (an upper estimate, linear to take) are shown as written. */
  maxDepth: 32,
  /** A tail longer than this is cut into blocks at blank lines (linear) before any is lexed, each on its own. */
  wholeTailChars: 32_000,
  /** A block longer than this is shown as written. */
  blockChars: 24_000,
  /** A block whose HTML would hold more elements than this is shown as written: the page must sanitise and lay them out. */
  blockElements: 10_000,
  /** A step of the worker (lexing a tail, or one block) that takes longer is stopped: the worker is ended. */
  stepMs: 1_500,
  /** Once the worker has spent this long on one text, its remaining blocks are shown as written. */
  textMs: 3_000,
  /** How much of a tool's output is read to tell whether it is Markdown. */
  sniffChars: 16_000,
} as const;

/** A list item's marker, with what must follow it: a space, a tab or the end of the line. */
const LIST_MARKER = /^(?:[-+*]|\d{1,9}[.)])(?=[ \t]|$)/;

/**
 * An upper estimate of how deeply `text` nests quotes and lists, in one pass: on each line outside a
 * fenced code block, the `>` and list markers it opens with, plus half the columns it is indented by
 * when a marker follows (the narrowest nesting, `- ` under `- `, indents by two). Fenced code is left
 * out, since its indentation nests nothing.
 */
export function nestingDepth(text: string): number {
  let deepest = 0;
  let fence: string | undefined;
  for (const line of text.split('\n')) {
    const opening = /^ {0,3}(`{3,}|~{3,})/.exec(line)?.[1];
    if (fence !== undefined) {
      if (opening !== undefined && opening[0] === fence[0] && opening.length >= fence.length && isFenceEnd(line)) {
        fence = undefined;
      }
      continue;
    }
    if (opening !== undefined) {
      fence = opening;
      continue;
    }
    deepest = Math.max(deepest, lineDepth(line));
  }
  return deepest;
}

/** The characters marked pairs up as it lexes inline text: emphasis, strikethrough, links and images, autolinks and HTML. */
const DELIMITERS = new Set(['*', '_', '~', '[', '<']);

/** How many delimiters `text` holds: what marked pairs up, at a cost that can grow with the square of their count. */
export function delimiterCount(text: string): number {
  let count = 0;
  for (const char of text) if (DELIMITERS.has(char)) count++;
  return count;
}

function lineDepth(line: string): number {
  let depth = 0;
  let at = 0;
  let columns = 0;
  for (;;) {
    while (line[at] === ' ' || line[at] === '\t') {
      columns += line[at] === '\t' ? 4 : 1;
      at++;
    }
    if (line[at] === '>') {
      depth++;
      at++;
      continue;
    }
    const marker = LIST_MARKER.exec(line.slice(at, at + 11))?.[0];
    if (marker === undefined) break;
    depth++;
    at += marker.length;
  }
  return depth === 0 ? 0 : depth + Math.floor(columns / 2);
}

/** Whether a fence line closes a fence: nothing but spaces after its backticks or tildes. */
function isFenceEnd(line: string): boolean {
  return /^ {0,3}(`{3,}|~{3,})[ \t]*$/.test(line);
}
