import DOMPurify from 'dompurify';

/** The elements the page's Markdown draws (markdown-parser.ts): no other element reaches the DOM. */
const ALLOWED_TAGS = [
  ...['p', 'br', 'hr', 'h3', 'h4', 'h5', 'h6', 'blockquote', 'ul', 'ol', 'li', 'input'],
  ...['strong', 'em', 'del', 'code', 'pre', 'a', 'span', 'div', 'button'],
  ...['table', 'thead', 'tbody', 'tr', 'th', 'td'],
];
const ALLOWED_ATTR = [
  ...['href', 'title', 'rel', 'target', 'class', 'start', 'align'],
  ...['type', 'checked', 'disabled', 'aria-label', 'tabindex'],
];

// An instance of its own, so these hooks apply to the page's Markdown alone.
const purifier = DOMPurify(window);
purifier.addHook('afterSanitizeAttributes', (node) => {
  // Whatever got through, a link opens in a new tab that cannot reach back, and an input is a disabled checkbox.
  if (node.tagName === 'A') {
    node.setAttribute('rel', 'noopener noreferrer');
    node.setAttribute('target', '_blank');
  } else if (node.tagName === 'INPUT') {
    node.setAttribute('type', 'checkbox');
    node.setAttribute('disabled', '');
  }
});

/**
 * `html` drawn from model output, made safe to put in the DOM (DOMPurify): only the elements and
 * attributes the page's Markdown uses, links to `http:`, `https:` and `mailto:` alone, no script,
 * event handler, style, image, form or frame. A second line behind the Markdown renderer, which
 * already shows raw HTML as text.
 */
export function sanitizeHtml(html: string): string {
  return purifier.sanitize(html, {
    ALLOWED_TAGS,
    ALLOWED_ATTR,
    ALLOWED_URI_REGEXP: /^(?:https?|mailto):/i,
  });
}
