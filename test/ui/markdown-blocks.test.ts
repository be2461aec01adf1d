import fc from 'fast-check';
import { Lexer, type Token } from 'marked';
import { describe, expect, it, vi } from 'vitest';
import { MarkdownBlocks } from '../../src/ui/markdown/markdown-blocks.js';
import { lexMarkdown } from '../../src/ui/markdown/markdown-lexer.js';

/** The blocks of `text` lexed in one piece, as MarkdownBlocks gives them: those that draw something. */
const whole = (text: string): Token[] =>
  lexMarkdown(text).filter((token) => token.type !== 'space' && token.type !== 'def');

/** `text` cut at `cuts` (offsets into it), fed to one MarkdownBlocks as a stream would: a longer prefix each time. */
function streamed(text: string, cuts: number[]): Token[] {
  const blocks = new MarkdownBlocks();
  for (const end of [...new Set(cuts)].sort((a, b) => a - b)) blocks.update(text.slice(0, end));
  return blocks.update(text);
}

/** Pieces of Markdown whose ends are where an incremental lexer goes wrong: blocks that go on, or change, as text arrives. */
const PIECES = [
  '# A heading',
  'Setext heading\n===',
  'Foo\n---',
  'A paragraph\nthat goes on',
  '- one\n- two',
  '- loose\n\n  still the item',
  '1. first\n2. second',
  '  - nested',
  '3) not first',
  '| a | b |\n|---|:-:|\n| 1 | 2 |',
  'tail | row',
  '```js\nconst x = 1;\n```',
  '```\nan unclosed fence',
  '    indented code',
  '> a quote\nlazy line',
  '<div>\nraw html\n</div>',
  '<script>\nalert(1)\n\nmore\n</script>',
  '[ref]: https://example.com/ref',
  'see [ref] and [x](https://example.com) and <https://a.b>',
  '***',
  '**bold** _em_ ~~del~~ `code` <img src=x onerror=alert(1)>',
  '- [ ] to do\n- [x] done',
  '\ttabbed',
  'crlf\r\nline',
  'trailing spaces  ',
];

describe('Markdown as it streams', () => {
  // Equal tokens draw equal HTML, whatever the renderer.
  it('cuts a text streamed in any deltas into exactly the blocks of the same text in one piece', () => {
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.constantFrom(...PIECES), fc.constantFrom('\n', '\n\n', '\n\n\n', ' ', '')), {
          minLength: 1,
          maxLength: 12,
        }),
        fc.array(fc.nat(), { maxLength: 40 }),
        (pieces, cuts) => {
          const text = pieces.map(([piece, gap]) => piece + gap).join('');
          const at = cuts.map((cut) => cut % (text.length + 1));
          expect(streamed(text, at)).toEqual(whole(text));
        },
      ),
      { numRuns: 400 },
    );
  });

  it('lexes only the last blocks of the text on each delta, and keeps the blocks before them as they were', () => {
    const paragraphs = Array.from({ length: 200 }, (_, index) => `Paragraph ${index} says *something*.`);
    const text = paragraphs.join('\n\n');
    const blocks = new MarkdownBlocks();
    const lexer = vi.spyOn(Lexer, 'lex');
    try {
      let first: Token | undefined;
      for (let end = 1; end <= text.length; end += 7) {
        const shown = blocks.update(text.slice(0, end));
        first ??= shown.length > 2 ? shown[0] : undefined;
        if (first) expect(shown[0]).toBe(first);
      }
      const lexed = lexer.mock.calls.map(([source]) => source.length);
      expect(lexed.length).toBeGreaterThan(text.length / 7 - 1);
      // Never more than the last two paragraphs and the start of the next: of 200, however long the text grows.
      const longest = Math.max(...paragraphs.map((paragraph) => paragraph.length));
      expect(Math.max(...lexed)).toBeLessThan(3 * longest);
      expect(blocks.update(text)).toEqual(whole(text));
    } finally {
      lexer.mockRestore();
    }
  });

  it('gives the same blocks for the same text without lexing it again', () => {
    const blocks = new MarkdownBlocks();
    const text = '# Title\n\nA paragraph.\n\n- a list';
    const first = blocks.update(text);
    const lexer = vi.spyOn(Lexer, 'lex');
    try {
      expect(blocks.update(text)).toBe(first);
      expect(lexer).not.toHaveBeenCalled();
    } finally {
      lexer.mockRestore();
    }
  });

  it('lexes the whole text again once a link reference definition appears, since it changes links before it', () => {
    const blocks = new MarkdownBlocks();
    blocks.update('See [the docs].\n\nMore text.\n\n');
    const text = 'See [the docs].\n\nMore text.\n\n[the docs]: https://example.com/docs';
    const shown = blocks.update(text);
    expect(shown[0]).toMatchObject({ tokens: expect.arrayContaining([expect.objectContaining({ type: 'link' })]) });
    expect(shown).toEqual(whole(text));
  });

  it('starts over when the text is not the last one plus more', () => {
    const blocks = new MarkdownBlocks();
    blocks.update('# One\n\nfirst text\n\n');
    expect(blocks.update('# Two\n\nsecond')).toEqual(whole('# Two\n\nsecond'));
  });

  it('draws a half-written fence as code to the end, and a half-written table as text until its delimiter row', () => {
    const blocks = new MarkdownBlocks();
    expect(blocks.update('Code:\n\n```python\ndef f(x):\n  return').map((token) => token.type)).toEqual([
      'paragraph',
      'code',
    ]);
    expect(new MarkdownBlocks().update('| a | b |\n').map((token) => token.type)).toEqual(['paragraph']);
    expect(new MarkdownBlocks().update('| a | b |\n|---|---|\n| 1 |').map((token) => token.type)).toEqual(['table']);
  });
});
