import { Marked, type Tokens } from 'marked';
import { escapeHtml } from './escape-html.js';
import { highlightCode } from './highlight-code.js';
import { MARKDOWN_OPTIONS } from './markdown-lexer.js';
import { safeHref } from './safe-href.js';

/** Model headings sit under the page's own: `#` is an `<h3>` under the run's `<h1>`. */
const HEADING_SHIFT = 2;

/** What every link the page draws from model output carries: a new tab that cannot reach back to the page. */
const LINK_ATTRIBUTES = 'rel="noopener noreferrer" target="_blank"';

/**
 * The page's Markdown renderer (marked), for the tokens of `lexMarkdown`, drawn for text a model wrote (docs/ui.md):
 * - raw HTML is shown as text, never as markup;
 * - links only to `http:`, `https:` and `mailto:` URLs ({@link safeHref}), opening in a new tab
 *   with `rel="noopener noreferrer"`; any other link is its text alone;
 * - images are never loaded: their alt text shows, with the URL as a link;
 * - fenced code is highlighted (`highlightCode`) under a bar with its language and a Copy button;
 * - tables scroll sideways in a box of their own, and so does code, so the page never does.
 * Its HTML is still sanitised before it reaches the DOM (`sanitizeHtml`): this is the first line, not the only one.
 */
export const markdownParser = new Marked({
  ...MARKDOWN_OPTIONS,
  renderer: {
    html({ text, block }: Tokens.HTML | Tokens.Tag) {
      return block ? `<p class="md-raw">${escapeHtml(text.replace(/\n+$/, ''))}</p>` : escapeHtml(text);
    },
    heading({ tokens, depth }) {
      const level = Math.min(depth + HEADING_SHIFT, 6);
      return `<h${level}>${this.parser.parseInline(tokens)}</h${level}>`;
    },
    link({ href, title, text, tokens, autolink }) {
      const content = autolink ? escapeHtml(text) : this.parser.parseInline(tokens);
      const url = safeHref(href);
      if (url === undefined) return content;
      const titled = title ? ` title="${escapeHtml(title)}"` : '';
      return `<a href="${escapeHtml(url)}"${titled} ${LINK_ATTRIBUTES}>${content}</a>`;
    },
    image({ href, text, tokens }) {
      const alt = escapeHtml(tokens ? this.parser.parseInline(tokens, this.parser.textRenderer) : text);
      const url = safeHref(href);
      const link = url === undefined ? '' : ` <a href="${escapeHtml(url)}" ${LINK_ATTRIBUTES}>${escapeHtml(url)}</a>`;
      return `<span class="md-image">Image${alt === '' ? '' : `: ${alt}`}${link}</span>`;
    },
    code({ text, lang }) {
      const language = /^\S+/.exec(lang ?? '')?.[0];
      const named = language === undefined ? '' : ` class="language-${escapeHtml(language)}"`;
      return (
        '<div class="code-block"><div class="code-head">' +
        `<span class="code-lang">${escapeHtml(language ?? 'code')}</span>` +
        '<button type="button" class="code-copy">Copy<span class="visually-hidden"> code</span></button>' +
        `</div><pre tabindex="0"><code${named}>${highlightCode(text, language)}</code></pre></div>`
      );
    },
    table(token) {
      const row = (cells: Tokens.TableCell[]) =>
        this.tablerow({ text: cells.map((cell) => this.tablecell(cell)).join('') });
      const body = token.rows.map(row).join('');
      return (
        `<div class="md-table" tabindex="0"><table><thead>${row(token.header)}</thead>` +
        `${body === '' ? '' : `<tbody>${body}</tbody>`}</table></div>`
      );
    },
    listitem(item) {
      // A task item's class lets its checkbox take the bullet's place (no :has() in Firefox 115).
      return `<li${item.task ? ' class="md-task"' : ''}>${this.parser.parse(item.tokens)}</li>`;
    },
    checkbox({ checked }) {
      return `<input type="checkbox" disabled${checked ? ' checked' : ''} aria-label="${checked ? 'done' : 'to do'}"> `;
    },
  },
});
