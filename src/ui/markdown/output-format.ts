import { Lexer, type Token } from 'marked';
import { MARKDOWN_OPTIONS } from './markdown-lexer.js';
import { MARKDOWN_LIMITS, nestingDepth } from './markdown-limits.js';

/** How a tool's output is shown: as Markdown, as JSON (`text` is then indented), or as it came. */
export interface OutputFormat {
  kind: 'markdown' | 'json' | 'text';
  text: string;
}

/**
 * How to show `output`, a tool's result text: a JSON object or array pretty-printed; Markdown drawn
 * when it plainly is Markdown — a table, a fenced code block, or a heading together with a list —
 * since plain output often has a stray `#` or `-` line (a shell comment, a file list) that should
 * stay as written; anything else as it came.
 */
export function outputFormat(output: string): OutputFormat {
  const trimmed = output.trim();
  if (/^[[{]/.test(trimmed)) {
    try {
      return { kind: 'json', text: JSON.stringify(JSON.parse(trimmed), null, 2) };
    } catch {
      // Not JSON after all: shown as text or Markdown, as below.
    }
  }
  const kinds = new Set(blockTokens(output).map(blockKind));
  const markdown = kinds.has('table') || kinds.has('fence') || (kinds.has('heading') && kinds.has('list'));
  return { kind: markdown ? 'markdown' : 'text', text: output };
}

/**
 * The top-level blocks of the start of `output`, for telling its kind on the page's thread: only its
 * first `sniffChars` (to its last line break), not nested too deep, and its blocks alone, without the
 * inline lexing whose cost grows with the square of its emphasis (markdown-limits.ts). None when marked fails on it.
 */
function blockTokens(output: string): Token[] {
  const cut = output.length > MARKDOWN_LIMITS.sniffChars;
  const start = cut ? output.slice(0, output.lastIndexOf('\n', MARKDOWN_LIMITS.sniffChars) + 1) : output;
  if (nestingDepth(start) > MARKDOWN_LIMITS.maxDepth) return [];
  try {
    return new Lexer(MARKDOWN_OPTIONS).blockTokens(start);
  } catch {
    return [];
  }
}

function blockKind(token: Token): string {
  return token.type === 'code' && token.codeBlockStyle !== 'indented' ? 'fence' : token.type;
}
