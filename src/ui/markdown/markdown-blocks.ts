import type { Token, TokensList } from 'marked';
import { lexMarkdown } from './markdown-lexer.js';

/**
 * A Markdown text as it streams, cut into its top-level blocks (paragraphs, lists, tables, code…)
 * without lexing the whole text again on every delta. The blocks before the last blank line that
 * another block follows are *settled*: no text appended later can change them ({@link settledCount}).
 * So each update lexes only the text after them — in a reply of paragraphs, the last one or two —
 * and settled blocks keep their token objects, which lets the renderer keep their HTML.
 *
 * One exception: a link reference definition (`[id]: https://…`) changes links anywhere in the
 * text, also before it, so once one appears the whole text is lexed on every update.
 */
export class MarkdownBlocks {
  /** The text of the settled blocks, line breaks normalised. */
  #settledText = '';
  #settled: Token[] = [];
  /** A link reference definition was seen: lex the whole text each time. */
  #whole = false;
  /** The last text given and its blocks: the page draws every turn again when one of them changes. */
  #last: { text: string; blocks: Token[] } | undefined;

  /**
   * The blocks of `text` that draw something, in order (blank lines and link definitions left
   * out). `text` is usually the last one given plus what streamed since; any other text starts over.
   */
  update(text: string): Token[] {
    if (this.#last?.text === text) return this.#last.blocks;
    const blocks = this.#blocks(text);
    this.#last = { text, blocks };
    return blocks;
  }

  #blocks(text: string): Token[] {
    // marked reads \r\n and \r as \n; so does the settled text, to stay a prefix of what it lexes.
    const source = text.includes('\r') ? text.replace(/\r\n?/g, '\n') : text;
    if (this.#whole || !source.startsWith(this.#settledText)) {
      this.#settledText = '';
      this.#settled = [];
      this.#whole = false;
    }
    let tail = lexMarkdown(source.slice(this.#settledText.length));
    if (hasLinkDefinitions(tail)) {
      this.#whole = true;
      if (this.#settled.length > 0) tail = lexMarkdown(source);
      this.#settledText = '';
      this.#settled = [];
      return tail.filter(draws);
    }
    const settled = settledCount(tail);
    for (const token of tail.slice(0, settled)) {
      this.#settledText += token.raw;
      if (draws(token)) this.#settled.push(token);
    }
    return [...this.#settled, ...tail.slice(settled).filter(draws)];
  }
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
