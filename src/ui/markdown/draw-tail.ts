import type { Token, TokensList } from 'marked';
import { type MarkdownChunk, markdownChunks } from './markdown-chunks.js';
import { lexMarkdown } from './markdown-lexer.js';
import { MARKDOWN_LIMITS, nestingDepth } from './markdown-limits.js';
import { markdownParser } from './markdown-parser.js';

/** Why a block is shown as written rather than drawn as Markdown: `unavailable` when no worker could run on the page. */
export type PlainReason = 'depth' | 'size' | 'time' | 'error' | 'unavailable';

/**
 * One top-level block of a Markdown text as the page shows it: its HTML (not yet sanitised: that
 * needs the page's DOM, sanitize-html.ts), or its text as written when it could not be drawn.
 */
export type DrawnBlock = { html: string } | { plain: string; reason: PlainReason };

/** What {@link drawTail} made of a text's tail. */
export interface DrawnTail {
  /** The blocks that show something, in order. */
  blocks: DrawnBlock[];
  /** How many of `blocks`, from the first, are settled: no text appended later can change them. */
  settledBlocks: number;
  /** How many characters of the tail those settled blocks span, with the blank lines after them. */
  settledChars: number;
  /** The tail defines a link reference, which changes links anywhere in the text: draw it whole from now on. */
  whole: boolean;
}

/** How {@link drawTail} goes about it. */
export interface DrawTailOptions {
  /** Cut the tail into chunks (markdown-chunks.ts) before lexing any of it, rather than lex it in one piece. */
  careful: boolean;
  /** Where chunks start that are shown as written without trying: drawing them took too long once. */
  plainAt: readonly number[];
  /** Said before each step that may take long: -1 before lexing the whole tail, else the start of the chunk. */
  step?: (at: number) => void;
  /** A `performance.now()` past which chunks not yet drawn are shown as written. */
  deadline?: number;
}

/**
 * The blocks of `tail` — a Markdown text, or what follows its settled blocks — drawn as the page's
 * HTML, with how many of them are settled. Pure, so the page runs it on its own thread for a small
 * tail and in its worker for any other (markdown-drawing.ts); it never throws for any text.
 *
 * In one piece when it can (the tail short enough and not nested too deep): the settled blocks are
 * those before the last blank line that another block follows, once that block's first line is
 * finished — before a blank line a paragraph can still turn into a heading or a table's header, and
 * after one a `1` can still become `1. item` of the list above. Otherwise, or when marked fails on it,
 * carefully: chunk by chunk, each within the limits (markdown-limits.ts) or shown as written.
 */
export function drawTail(tail: string, options: DrawTailOptions): DrawnTail {
  if (
    !options.careful &&
    tail.length <= MARKDOWN_LIMITS.wholeTailChars &&
    nestingDepth(tail) <= MARKDOWN_LIMITS.maxDepth
  ) {
    options.step?.(-1);
    try {
      return drawWhole(tail);
    } catch {
      // marked failed on it (its stack, most likely): the careful way finds the block it failed on.
    }
  }
  return drawChunks(tail, options);
}

function drawWhole(tail: string): DrawnTail {
  const tokens = lexMarkdown(tail);
  const whole = hasLinkDefinitions(tokens);
  const settled = whole ? 0 : settledCount(tokens);
  const blocks: DrawnBlock[] = [];
  let settledBlocks = 0;
  let settledChars = 0;
  for (const [index, token] of tokens.entries()) {
    if (index < settled) settledChars += token.raw.length;
    if (!draws(token)) continue;
    blocks.push(drawBlock(token));
    if (index < settled) settledBlocks++;
  }
  return { blocks, settledBlocks, settledChars, whole };
}

function drawChunks(tail: string, { plainAt, step, deadline }: DrawTailOptions): DrawnTail {
  const { chunks, settled } = markdownChunks(tail);
  const blocks: DrawnBlock[] = [];
  let settledBlocks = 0;
  for (const [index, { start, text }] of chunks.entries()) {
    const plain = (reason: PlainReason) => blocks.push({ plain: asWritten(text), reason });
    if (plainAt.includes(start)) plain('time');
    else if (text.length > MARKDOWN_LIMITS.blockChars) plain('size');
    else if (nestingDepth(text) > MARKDOWN_LIMITS.maxDepth) plain('depth');
    else if (deadline !== undefined && performance.now() > deadline) plain('time');
    else {
      step?.(start);
      try {
        blocks.push(...lexMarkdown(text).filter(draws).map(drawBlock));
      } catch {
        plain('error');
      }
    }
    if (index < settled) settledBlocks = blocks.length;
  }
  return { blocks, settledBlocks, settledChars: chunks[settled]?.start ?? 0, whole: false };
}

/** `tail` shown as written, chunk by chunk (markdown-chunks.ts), as settled as {@link drawTail} would say. */
export function tailAsWritten(tail: string, reason: PlainReason): DrawnTail {
  const { chunks, settled } = markdownChunks(tail);
  const shown = (chunk: MarkdownChunk) => chunk.text.trim() !== '';
  return {
    blocks: chunks.filter(shown).map(({ text }) => ({ plain: asWritten(text), reason })),
    settledBlocks: chunks.slice(0, settled).filter(shown).length,
    settledChars: chunks[settled]?.start ?? 0,
    whole: false,
  };
}

/** One top-level block as HTML; one whose HTML would hold too many elements for the page, as written. */
function drawBlock(token: Token): DrawnBlock {
  const html = markdownParser.parser([token]).trim();
  return elements(html) > MARKDOWN_LIMITS.blockElements ? { plain: asWritten(token.raw), reason: 'size' } : { html };
}

/** A block's text as it is shown when not drawn: without the blank lines around it (no regex: linear for any text). */
function asWritten(text: string): string {
  const trimmed = text.trimEnd();
  let start = 0;
  for (let at = 0; at < trimmed.length; at++) {
    const char = trimmed[at];
    if (char === '\n') start = at + 1;
    else if (char !== ' ' && char !== '\t') break;
  }
  return trimmed.slice(start);
}

/** An upper count of the elements in `html`: every `<` the renderer writes opens or closes one. */
function elements(html: string): number {
  let count = 0;
  for (let at = html.indexOf('<'); at >= 0; at = html.indexOf('<', at + 1)) count++;
  return count / 2;
}

/**
 * How many of `tokens` (the top-level tokens of a text that may still grow) are settled: those up to
 * the last blank line that another block follows. Before a blank line, a block can still change with
 * what comes next (a paragraph turns into a heading, or into a table's header, under the line that
 * follows it); after one, a block that goes on (a list item, indented code) has already taken the
 * block after the blank line in, so the lexer has made one token of them.
 */
function settledCount(tokens: Token[]): number {
  const last = tokens.findLastIndex((token) => token.type !== 'space');
  for (let index = last - 1; index >= 0; index--) {
    if (tokens[index]!.type === 'space' && blankLineAt(tokens, index) && firstLineDone(tokens, index + 1)) {
      return index + 1;
    }
  }
  return 0;
}

/**
 * Whether the first line of the block at `index` is finished. Until it is, the block may still turn
 * out to continue the one before the blank line: `1` after a list becomes `1. item`, a new item of it.
 */
function firstLineDone(tokens: Token[], index: number): boolean {
  return index < tokens.length - 1 || tokens[index]!.raw.includes('\n');
}

/** Whether the space token at `index` holds a blank line, counting the line break the token before it may end with. */
function blankLineAt(tokens: Token[], index: number): boolean {
  const before = index === 0 ? '\n' : tokens[index - 1]!.raw.slice(-1);
  return /\n[ \t]*\n/.test(before + tokens[index]!.raw);
}

function hasLinkDefinitions(tokens: TokensList): boolean {
  for (const _ in tokens.links) return true;
  return false;
}

function draws(token: Token): boolean {
  return token.type !== 'space' && token.type !== 'def';
}
