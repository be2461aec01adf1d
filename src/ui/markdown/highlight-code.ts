// highlight.js's types bring the DOM library into any program that imports this module, the Node
// tests' included, where the DOM's ReadableStream would then lack the async iteration Node's has.
/// <reference lib="dom.asynciterable" />
import hljs from 'highlight.js/lib/core';
import bash from 'highlight.js/lib/languages/bash';
import c from 'highlight.js/lib/languages/c';
import cpp from 'highlight.js/lib/languages/cpp';
import css from 'highlight.js/lib/languages/css';
import diff from 'highlight.js/lib/languages/diff';
import go from 'highlight.js/lib/languages/go';
import java from 'highlight.js/lib/languages/java';
import javascript from 'highlight.js/lib/languages/javascript';
import json from 'highlight.js/lib/languages/json';
import markdown from 'highlight.js/lib/languages/markdown';
import python from 'highlight.js/lib/languages/python';
import rust from 'highlight.js/lib/languages/rust';
import shell from 'highlight.js/lib/languages/shell';
import sql from 'highlight.js/lib/languages/sql';
import typescript from 'highlight.js/lib/languages/typescript';
import xml from 'highlight.js/lib/languages/xml';
import yaml from 'highlight.js/lib/languages/yaml';
import { escapeHtml } from './escape-html.js';

// The languages models write most, and no more: each one adds to the page's bundle (docs/ui.md).
// Their aliases come with them (js, ts, py, sh, html, yml, …).
for (const [name, language] of Object.entries({
  bash,
  c,
  cpp,
  css,
  diff,
  go,
  java,
  javascript,
  json,
  markdown,
  python,
  rust,
  shell,
  sql,
  typescript,
  xml,
  yaml,
})) {
  hljs.registerLanguage(name, language);
}

/**
 * `code` as HTML: highlighted (spans with `hljs-*` classes) when `language` names one of the
 * languages above or an alias of one, else only escaped. Never guesses a language: guessing is slow
 * on every streamed delta and often wrong on short snippets.
 */
export function highlightCode(code: string, language: string | undefined): string {
  if (language === undefined || hljs.getLanguage(language) === undefined) return escapeHtml(code);
  return hljs.highlight(code, { language, ignoreIllegals: true }).value;
}
