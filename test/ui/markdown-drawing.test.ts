import fc from 'fast-check';
import { Lexer } from 'marked';
import { describe, expect, it, vi } from 'vitest';
import { type DrawnBlock, drawTail } from '../../src/ui/markdown/draw-tail.js';
import { type DrawingPage, MarkdownDrawing, type ShownMarkdown } from '../../src/ui/markdown/markdown-drawing.js';
import { MARKDOWN_LIMITS } from '../../src/ui/markdown/markdown-limits.js';
import { type DrawOutcome, type DrawRequest, MarkdownWorker } from '../../src/ui/markdown/markdown-worker-client.js';
import { SyncBudget } from '../../src/ui/markdown/sync-budget.js';

/** A worker that draws in this process, a moment after it is asked, as the page's would in its thread. */
function inProcessWorker(): MarkdownWorker {
  return new MarkdownWorker((answer) => ({
    postMessage: (request) =>
      queueMicrotask(() => answer({ job: request.job, drawn: drawTail(request.tail, request) })),
    terminate() {},
  }));
}

/** A page for drawings in a test: HTML as drawn (there is no DOM to sanitise with here), and `worker` to draw in. */
function testPage(
  worker: DrawingPage['worker'] = () => inProcessWorker(),
  budget = new SyncBudget(Number.POSITIVE_INFINITY, Number.POSITIVE_INFINITY),
): DrawingPage & { redraws: number } {
  const page = {
    sanitize: (html: string) => html,
    worker,
    budget,
    redraws: 0,
    redraw: () => {
      page.redraws++;
    },
  };
  return page;
}

/** The blocks of `text` in a new drawing, once drawn, wherever that happens. */
async function drawnOnce(text: string): Promise<DrawnBlock[]> {
  return (await settle(new MarkdownDrawing(testPage()), text)).blocks;
}

/** Gives `drawing` the text `text` and waits until it is drawn. */
async function settle(drawing: MarkdownDrawing, text: string): Promise<ShownMarkdown> {
  let shown = drawing.update(text);
  await vi.waitFor(() => {
    shown = drawing.update(text);
    expect(shown.busy).toBe(false);
  });
  return shown;
}

/** Resolves once the task under way and every promise it settled are done. */
const nextTask = () => new Promise((resolve) => setImmediate(resolve));

/** `text` cut at `cuts` (offsets into it), fed to one drawing as a stream would: a longer prefix each time. */
function streamed(text: string, cuts: number[]): DrawnBlock[] {
  const drawing = new MarkdownDrawing(testPage());
  for (const end of [...new Set(cuts)].sort((a, b) => a - b)) drawing.update(text.slice(0, end));
  return drawing.update(text).blocks;
}

/** The HTML of drawn blocks, or what they show as written. */
const html = (blocks: DrawnBlock[]) => blocks.map((block) => ('html' in block ? block.html : `plain: ${block.plain}`));

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

const textOf = (pieces: Array<[string, string]>) => pieces.map(([piece, gap]) => piece + gap).join('');
const someText = fc.array(fc.tuple(fc.constantFrom(...PIECES), fc.constantFrom('\n', '\n\n', '\n\n\n', ' ', '')), {
  minLength: 1,
  maxLength: 12,
});

describe('Markdown as it streams', () => {
  it('draws a text streamed in any deltas exactly as the same text in one piece', () => {
    fc.assert(
      fc.property(someText, fc.array(fc.nat(), { maxLength: 40 }), (pieces, cuts) => {
        const text = textOf(pieces);
        const at = cuts.map((cut) => cut % (text.length + 1));
        expect(html(streamed(text, at))).toEqual(html(new MarkdownDrawing(testPage()).update(text).blocks));
      }),
      { numRuns: 400 },
    );
  });

  it('lexes only the last blocks of the text on each delta, and keeps the blocks before them as they were', async () => {
    const paragraphs = Array.from({ length: 200 }, (_, index) => `Paragraph ${index} says *something*.`);
    const text = paragraphs.join('\n\n');
    const drawing = new MarkdownDrawing(testPage());
    const lexer = vi.spyOn(Lexer, 'lex');
    try {
      let first: DrawnBlock | undefined;
      for (let end = 1; end <= text.length; end += 7) {
        const shown = drawing.update(text.slice(0, end));
        expect(shown.busy).toBe(false);
        first ??= shown.blocks.length > 2 ? shown.blocks[0] : undefined;
        if (first) expect(shown.blocks[0]).toBe(first);
      }
      const lexed = lexer.mock.calls.map(([source]) => source.length);
      expect(lexed.length).toBeGreaterThan(text.length / 7 - 1);
      // Never more than the last two paragraphs and the start of the next: of 200, however long the text grows.
      const longest = Math.max(...paragraphs.map((paragraph) => paragraph.length));
      expect(Math.max(...lexed)).toBeLessThan(3 * longest);
      const last = drawing.update(text).blocks;
      lexer.mockRestore();
      // The text in one piece is long enough to be drawn in the worker.
      expect(html(last)).toEqual(html(await drawnOnce(text)));
    } finally {
      lexer.mockRestore();
    }
  });

  it('gives the same blocks for the same text without lexing it again', () => {
    const drawing = new MarkdownDrawing(testPage());
    const text = '# Title\n\nA paragraph.\n\n- a list';
    const first = drawing.update(text).blocks;
    const lexer = vi.spyOn(Lexer, 'lex');
    try {
      expect(drawing.update(text).blocks).toEqual(first);
      expect(lexer).not.toHaveBeenCalled();
    } finally {
      lexer.mockRestore();
    }
  });

  it('draws the whole text again once a link reference definition appears, since it changes links before it', () => {
    const drawing = new MarkdownDrawing(testPage());
    drawing.update('See [the docs].\n\nMore text.\n\n');
    const shown = drawing.update('See [the docs].\n\nMore text.\n\n[the docs]: https://example.com/docs');
    expect(html(shown.blocks)).toEqual([
      '<p>See <a href="https://example.com/docs" rel="noopener noreferrer" target="_blank">the docs</a>.</p>',
      '<p>More text.</p>',
    ]);
  });

  it('starts over when the text is not the last one plus more', () => {
    const drawing = new MarkdownDrawing(testPage());
    drawing.update('# One\n\nfirst text\n\n');
    expect(html(drawing.update('# Two\n\nsecond').blocks)).toEqual(['<h3>Two</h3>', '<p>second</p>']);
  });

  it('draws a half-written fence as code to the end, and a half-written table as text until its delimiter row', () => {
    const fence = html(new MarkdownDrawing(testPage()).update('Code:\n\n```python\ndef f(x):\n  return').blocks);
    expect(fence).toHaveLength(2);
    expect(fence[1]).toMatch(/^<div class="code-block">/);
    expect(html(new MarkdownDrawing(testPage()).update('| a | b |\n').blocks)).toEqual(['<p>| a | b |</p>']);
    expect(html(new MarkdownDrawing(testPage()).update('| a | b |\n|---|---|\n| 1 |').blocks)[0]).toMatch(
      /^<div class="md-table"/,
    );
  });
});

describe('Markdown within bounds', () => {
  it('shows a block nested too deeply as written, on the page’s thread, and draws the blocks around it', () => {
    const drawing = new MarkdownDrawing(testPage());
    const { blocks, busy } = drawing.update(`Before **it**.\n\n${'>'.repeat(3000)} deep\n\nAfter it.`);
    expect(busy).toBe(false);
    expect(blocks).toEqual([
      { html: '<p>Before <strong>it</strong>.</p>' },
      { plain: `${'>'.repeat(3000)} deep`, reason: 'depth' },
      { html: '<p>After it.</p>' },
    ]);
  });

  it('draws a large text in the worker, chunk by chunk, showing a block too large as written', async () => {
    const page = testPage();
    const drawing = new MarkdownDrawing(page);
    const text = `Before **it**.\n\n${'_a'.repeat(150_000)}\n\nAfter it.\n`;
    // Nothing is drawn on the page's thread: it shows what it had (nothing yet) until the worker is done.
    expect(drawing.update(text)).toEqual({ blocks: [], busy: true });
    const shown = await settle(drawing, text);
    expect(shown.blocks).toEqual([
      { html: '<p>Before <strong>it</strong>.</p>' },
      { plain: '_a'.repeat(150_000), reason: 'size' },
      { html: '<p>After it.</p>' },
    ]);
    expect(page.redraws).toBe(1);
    // All but the last chunk settled: what streams next is drawn on the page's thread again.
    const more = drawing.update(`${text}More.`);
    expect(more.busy).toBe(false);
    expect(more.blocks.at(-1)).toEqual({ html: '<p>After it.\nMore.</p>' });
  });

  it.each(['_a', '*a', '~a', '[a', '<a'])(
    'sends a tail thick with delimiters (%s) to the worker, however short',
    async (pair) => {
      const text = pair.repeat(MARKDOWN_LIMITS.syncDelimiters + 1);
      const drawing = new MarkdownDrawing(testPage());
      expect(drawing.update(text).busy).toBe(true);
      expect((await settle(drawing, text)).blocks).toHaveLength(1);
    },
  );

  it('draws a text in the worker from then on once one draw of it on the page’s thread was slow', async () => {
    const drawing = new MarkdownDrawing(testPage(undefined, new SyncBudget(Number.POSITIVE_INFINITY, 50)));
    // As if the first draw took 60 ms: a kind of text the checks before drawing let through.
    const now = vi.spyOn(performance, 'now').mockReturnValueOnce(0).mockReturnValueOnce(60);
    try {
      expect(drawing.update('A paragraph.\n\n').busy).toBe(false);
    } finally {
      now.mockRestore();
    }
    expect(drawing.update('A paragraph.\n\nAnother.').busy).toBe(true);
    expect(html((await settle(drawing, 'A paragraph.\n\nAnother.')).blocks)).toEqual([
      '<p>A paragraph.</p>',
      '<p>Another.</p>',
    ]);
  });

  it('draws on the page’s thread only while the task’s budget lasts, and the rest in the worker', async () => {
    const budget = new SyncBudget(30, Number.POSITIVE_INFINITY);
    const page = testPage(undefined, budget);
    const text = `A message with *some* emphasis.`;
    expect(new MarkdownDrawing(page).update(text).busy).toBe(false);
    // As if the drawings before had spent the task's budget: the next goes to the worker.
    budget.charge(30);
    const late = new MarkdownDrawing(page);
    expect(late.update(text).busy).toBe(true);
    expect(html((await settle(late, text)).blocks)).toEqual(['<p>A message with <em>some</em> emphasis.</p>']);
    // The next task has its whole budget again.
    await nextTask();
    expect(new MarkdownDrawing(page).update(text).busy).toBe(false);
  });

  it('draws a text again chunk by chunk when lexing it whole took too long, and shows a chunk that took too long as written', async () => {
    const requests: Array<Omit<DrawRequest, 'job'>> = [];
    const outcomes: DrawOutcome[] = [];
    const page = testPage(() => ({
      draw: async (request) => {
        requests.push(request);
        return outcomes.shift() ?? { drawn: drawTail(request.tail, request) };
      },
    }));
    const text = `Before it.\n\n${'x_a'.repeat(3000)}\n\nAfter it.`;
    const hostile = text.indexOf('x_a');
    outcomes.push({ stoppedAt: -1, ms: 1500 }, { stoppedAt: hostile, ms: 1400 });
    const drawing = new MarkdownDrawing(page);
    const shown = await settle(drawing, text);
    expect(requests.map(({ careful, plainAt }) => ({ careful, plainAt }))).toEqual([
      { careful: false, plainAt: [] },
      { careful: true, plainAt: [] },
      { careful: true, plainAt: [hostile] },
    ]);
    // The worker may spend less on the text each time a step of it was stopped.
    expect(requests.map(({ budgetMs }) => budgetMs)).toEqual([3000, 1500, 100]);
    expect(shown.blocks).toEqual([
      { html: '<p>Before it.</p>' },
      { plain: 'x_a'.repeat(3000), reason: 'time' },
      { html: '<p>After it.</p>' },
    ]);
  });

  it('shows a text as written, chunk by chunk, when no worker can run on the page', async () => {
    const page = testPage(() => ({ draw: async () => ({ unavailable: true }) }));
    const words = 'word '.repeat(1000).trimEnd();
    const text = `# Title\n\n${words}\n\n- a list that may go on\n\n  past a blank line\n\nThe end.`;
    expect((await settle(new MarkdownDrawing(page), text)).blocks).toEqual([
      { plain: '# Title', reason: 'unavailable' },
      { plain: words, reason: 'unavailable' },
      { plain: '- a list that may go on\n\n  past a blank line', reason: 'unavailable' },
      { plain: 'The end.', reason: 'unavailable' },
    ]);
  });

  it('asks nothing more of the worker for a view that is gone', async () => {
    const signals: Array<AbortSignal | undefined> = [];
    const page = testPage(() => ({
      draw: async (request, signal) => {
        signals.push(signal);
        return { drawn: drawTail(request.tail, request) };
      },
    }));
    const drawing = new MarkdownDrawing(page);
    drawing.update('x'.repeat(10_000));
    drawing.dispose();
    // The worker skips a draw whose signal aborted before its turn; one under way is not drawn when done.
    expect(signals.map((signal) => signal?.aborted)).toEqual([true]);
    await nextTask();
    expect(page.redraws).toBe(0);
  });
});
