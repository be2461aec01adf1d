import type { Token } from 'marked';
import { markdownParser } from './markdown-parser.js';
import { sanitizeHtml } from './sanitize-html.js';

/** The HTML of blocks already drawn, by token: a settled block (markdown-blocks.ts) is rendered and sanitised once. */
const rendered = new WeakMap<Token, string>();

/** One top-level Markdown block as sanitised HTML, ready for the DOM. */
export function renderBlock(token: Token): string {
  let html = rendered.get(token);
  if (html === undefined) {
    html = sanitizeHtml(markdownParser.parser([token]).trim());
    rendered.set(token, html);
  }
  return html;
}
