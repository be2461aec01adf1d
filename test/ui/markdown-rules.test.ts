import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { drawTail } from '../../src/ui/markdown/draw-tail.js';
import { markdownChunks } from '../../src/ui/markdown/markdown-chunks.js';
import { MARKDOWN_LIMITS, nestingDepth } from '../../src/ui/markdown/markdown-limits.js';
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

describe('how much Markdown work the page does for a text', () => {
  it('tells the kind of a hostile tool output without drawing it, and from its start only', () => {
    for (const output of [`${'>'.repeat(3000)} deep`, `${'- '.repeat(3000)}deep`, '_a'.repeat(150_000)]) {
      expect(outputFormat(output)).toEqual({ kind: 'text', text: output });
    }
    const long = `# Files\n\n- a.txt\n\n${'plain line\n'.repeat(5000)}`;
    expect(outputFormat(long).kind).toBe('markdown');
    expect(outputFormat(`${'plain line\n'.repeat(5000)}| a | b |\n|---|---|`).kind).toBe('text');
  });

  it('estimates how deeply a text nests quotes and lists, from above, leaving fenced code out', () => {
    expect(nestingDepth('plain\n\n    indented code')).toBe(0);
    expect(nestingDepth('> a\n>> b\n> > > c')).toBe(4);
    expect(nestingDepth('- a\n  - b\n    - c')).toBe(3);
    expect(nestingDepth(`${' '.repeat(200)}- deep`)).toBe(101);
    expect(nestingDepth(`${'- '.repeat(50)}x`)).toBeGreaterThanOrEqual(50);
    expect(nestingDepth(`\`\`\`\n${' '.repeat(200)}- in code\n\`\`\`\n- out`)).toBe(1);
  });

  it('cuts a text into chunks at blank lines before a new block, and never inside a list or a fence', () => {
    const text =
      '# Title\n\nA paragraph.\n\n- item\n\n  more of it\n- next\n\n```\ncode\n\nmore code\n```\n\nThe end.\n';
    expect(markdownChunks(text)).toEqual({
      chunks: [
        { start: 0, text: '# Title\n\n' },
        { start: 9, text: 'A paragraph.\n\n' },
        { start: 23, text: '- item\n\n  more of it\n- next\n\n' },
        { start: 52, text: '```\ncode\n\nmore code\n```\n\n' },
        { start: 77, text: 'The end.\n' },
      ],
      settled: 4,
    });
    // An unfinished last line may still be `1. item` of a list above: the chunk before it is not settled.
    expect(markdownChunks('- a\n\n1').settled).toBe(0);
  });

  it('draws a text chunk by chunk as it draws it in one piece', () => {
    const pieces = [
      '# A heading',
      'Setext heading\n===',
      'A paragraph\nthat goes on',
      '- one\n- two',
      '- loose\n\n  still the item',
      '1. first\n2. second',
      '| a | b |\n|---|:-:|\n| 1 | 2 |',
      '```js\nconst x = 1;\n\nconst y = 2;\n```',
      '    indented code',
      '> a quote\nlazy line',
      '**bold** _em_ ~~del~~ `code` <img src=x onerror=alert(1)>',
      '- [ ] to do\n- [x] done',
    ];
    fc.assert(
      fc.property(fc.array(fc.constantFrom(...pieces), { minLength: 1, maxLength: 10 }), (chosen) => {
        const text = `${chosen.join('\n\n')}\n`;
        const whole = drawTail(text, { careful: false, plainAt: [] });
        expect(drawTail(text, { careful: true, plainAt: [] }).blocks).toEqual(whole.blocks);
      }),
      { numRuns: 300 },
    );
  });

  it('shows as written a block nested too deeply, too large, or past the time, and draws the others', () => {
    const text = `Before.\n\n${'>'.repeat(3000)} deep\n\n${'word '.repeat(6000)}\n\nSlow.\n\nAfter.`;
    const drawn = drawTail(text, { careful: false, plainAt: [text.indexOf('Slow.')] });
    expect(drawn.blocks).toEqual([
      { html: '<p>Before.</p>' },
      { plain: `${'>'.repeat(3000)} deep`, reason: 'depth' },
      { plain: 'word '.repeat(6000).trimEnd(), reason: 'size' },
      { plain: 'Slow.', reason: 'time' },
      { html: '<p>After.</p>' },
    ]);
    // Drawn chunk by chunk (after lexing it whole took too long once), past its time: all as written.
    const late = drawTail('A.\n\nB.\n\nC.', { careful: true, plainAt: [], deadline: 0 });
    expect(late.blocks.map((block) => ('html' in block ? 'html' : block.reason))).toEqual(['time', 'time', 'time']);
  });

  it('shows as written a block whose HTML holds more elements than the page lays out', () => {
    const text = '*a* '.repeat(MARKDOWN_LIMITS.blockElements + 1);
    expect(drawTail(text, { careful: false, plainAt: [] }).blocks).toEqual([{ plain: text.trimEnd(), reason: 'size' }]);
  });
});
