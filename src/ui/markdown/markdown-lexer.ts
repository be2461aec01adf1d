import { Lexer, type MarkedOptions, type TokensList } from 'marked';

/** The page's Markdown dialect: CommonMark with GitHub's tables, task lists, strikethrough and autolinks. */
export const MARKDOWN_OPTIONS = { gfm: true } satisfies MarkedOptions;

/** The tokens of `text` in the page's dialect: its top-level blocks, each with its inline tokens. */
export function lexMarkdown(text: string): TokensList {
  return Lexer.lex(text, MARKDOWN_OPTIONS);
}
