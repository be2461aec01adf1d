import { describe, expect, it } from 'vitest';
import { outputFormat } from '../../src/ui/markdown/output-format.js';
import { safeHref } from '../../src/ui/markdown/safe-href.js';

/** The rules the chat page draws model output by that need no browser (docs/ui.md); the rest run in Chromium. */
describe('which links from model output the page keeps', () => {
  it.each([
    ['https://example.com/a b', 'https://example.com/a%20b'],
    ['http://127.0.0.1:8080/x', 'http://127.0.0.1:8080/x'],
    ['mailto:someone@example.com', 'mailto:someone@example.com'],
    ['HTTPS://EXAMPLE.COM', 'https://example.com/'],
  ])('keeps %s as %s', (href, kept) => {
    expect(safeHref(href)).toBe(kept);
  });

  it.each([
    'javascript:alert(1)',
    'JaVaScRiPt:alert(1)',
    'java\tscript:alert(1)',
    ' javascript:alert(1)',
    'data:text/html,<script>alert(1)</script>',
    'vbscript:msgbox(1)',
    'file:///etc/passwd',
    '/v1/runs',
    '#/runs/run_x',
    'example.com',
  ])('refuses %s', (href) => {
    expect(safeHref(href)).toBeUndefined();
  });
});

describe('how the page shows a tool output', () => {
  it('indents a JSON object or array, and leaves other JSON and broken JSON as text', () => {
    expect(outputFormat('{"a":1,"b":[true]}')).toEqual({
      kind: 'json',
      text: '{\n  "a": 1,\n  "b": [\n    true\n  ]\n}',
    });
    expect(outputFormat(' [1, 2]\n')).toEqual({ kind: 'json', text: '[\n  1,\n  2\n]' });
    expect(outputFormat('42')).toEqual({ kind: 'text', text: '42' });
    expect(outputFormat('{not json')).toEqual({ kind: 'text', text: '{not json' });
  });

  it('draws Markdown only when it plainly is: a table, a fenced block, or a heading with a list', () => {
    const markdown = ['| a | b |\n|---|---|\n| 1 | 2 |', 'Result:\n\n```\nok\n```', '# Files\n\n- a.txt\n- b.txt'];
    for (const output of markdown) expect(outputFormat(output)).toEqual({ kind: 'markdown', text: output });
    const plain = [
      '# app settings, exported 2024-03-02\n[app]\nport = 8080',
      '- a.txt\n- b.txt',
      '2 files:\nnotes/a.md (12 bytes)\nREADME.md (40 bytes)',
      '6 * 7 = 42',
    ];
    for (const output of plain) expect(outputFormat(output)).toEqual({ kind: 'text', text: output });
  });
});
