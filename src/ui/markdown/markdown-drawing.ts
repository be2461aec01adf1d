import { type DrawnBlock, type DrawnTail, drawTail, tailAsWritten } from './draw-tail.js';
import { delimiterCount, MARKDOWN_LIMITS } from './markdown-limits.js';
import type { MarkdownWorker } from './markdown-worker-client.js';
import type { SyncBudget } from './sync-budget.js';

/** What a {@link MarkdownDrawing} needs of the page: its sanitiser, its worker, its budget, and a way to draw again. */
export interface DrawingPage {
  /** Makes the HTML of a block safe for the DOM (sanitize-html.ts). */
  sanitize(html: string): string;
  worker(): Pick<MarkdownWorker, 'draw'>;
  budget: SyncBudget;
  /** A draw in the worker ended: the view should ask for its blocks again. */
  redraw(): void;
}

/** What a text looks like on the page for now: its blocks (HTML sanitised), and whether a newer text is still being drawn. */
export interface ShownMarkdown {
  blocks: DrawnBlock[];
  busy: boolean;
}

/**
 * A Markdown text as it streams, drawn block by block without drawing the whole text again on every
 * delta (docs/ui.md, Markdown). Blocks that no text appended later can change are *settled*
 * (`drawTail`): they keep their HTML, so Preact leaves their DOM alone, and each update draws only the
 * tail after them — in a reply of paragraphs, the last one or two.
 *
 * A small, plain tail is drawn at once on the page's thread, while the task's budget lasts; any other
 * in the page's worker, after which the view draws again. Its time is bounded there: a step that takes
 * too long is stopped, and the text drawn again without it — carefully, chunk by chunk, when it was the
 * lexing of the whole tail, or with that chunk shown as written. Meanwhile the blocks drawn before stay.
 */
export class MarkdownDrawing {
  readonly #page: DrawingPage;
  readonly #disposed = new AbortController();
  /** The text of the settled blocks, line breaks normalised. */
  #settledText = '';
  #settled: DrawnBlock[] = [];
  #tail: DrawnBlock[] = [];
  /** The text the blocks shown are of, and the latest text asked for. */
  #drawn: string | undefined;
  #wanted: string | undefined;
  #inWorker = false;
  /** One draw of this text on the page's thread took too long: it is drawn in the worker from now on. */
  #heavy = false;
  /** Draw the tail chunk by chunk: lexing it whole took too long once. */
  #careful = false;
  /** Where chunks start (in the whole text) that took too long to draw once: shown as written from now on. */
  #plainAt: number[] = [];
  /** What the worker may still spend on the text before its remaining blocks are shown as written. */
  #budgetMs: number = MARKDOWN_LIMITS.textMs;

  constructor(page: DrawingPage) {
    this.#page = page;
  }

  /** The blocks of `text` to show now; `text` is usually the last one given plus what streamed since. */
  update(text: string): ShownMarkdown {
    // marked reads \r\n and \r as \n; so does the settled text, to stay a prefix of what it draws.
    const source = text.includes('\r') ? text.replace(/\r\n?/g, '\n') : text;
    if (source !== this.#wanted) {
      this.#wanted = source;
      if (!this.#inWorker) this.#draw();
    }
    return { blocks: [...this.#settled, ...this.#tail], busy: this.#drawn !== this.#wanted };
  }

  /** The view is gone: nothing it asked of the worker is drawn any more. */
  dispose(): void {
    this.#disposed.abort();
  }

  #draw(): void {
    const source = this.#wanted!;
    if (!source.startsWith(this.#settledText)) this.#startOver();
    const base = this.#settledText.length;
    const tail = source.slice(base);
    const request = {
      careful: this.#careful,
      plainAt: this.#plainAt.filter((at) => at >= base).map((at) => at - base),
    };
    if (this.#fitsHere(tail)) {
      const started = performance.now();
      const drawn = drawTail(tail, request);
      if (this.#page.budget.charge(performance.now() - started)) this.#heavy = true;
      this.#apply(source, base, drawn);
      return;
    }
    this.#inWorker = true;
    void this.#page
      .worker()
      .draw({ tail, ...request, budgetMs: this.#budgetMs }, this.#disposed.signal)
      .then((outcome) => {
        this.#inWorker = false;
        if (this.#disposed.signal.aborted) return;
        if ('drawn' in outcome) {
          this.#budgetMs = MARKDOWN_LIMITS.textMs;
          this.#apply(source, base, outcome.drawn);
        } else if ('stoppedAt' in outcome) {
          this.#budgetMs = Math.max(0, this.#budgetMs - outcome.ms);
          if (outcome.stoppedAt < 0) this.#careful = true;
          else this.#plainAt.push(base + outcome.stoppedAt);
        } else {
          this.#apply(source, base, tailAsWritten(tail, 'unavailable'));
        }
        if (!this.#inWorker && this.#drawn !== this.#wanted) this.#draw();
        this.#page.redraw();
      });
  }

  /**
   * Whether `tail` is drawn on the page's own thread: small, with few delimiters, while the task's
   * budget lasts, and unless a draw of this text there was slow (a kind of text these checks miss).
   */
  #fitsHere(tail: string): boolean {
    return (
      !this.#heavy &&
      tail.length <= MARKDOWN_LIMITS.syncChars &&
      delimiterCount(tail) <= MARKDOWN_LIMITS.syncDelimiters &&
      this.#page.budget.available()
    );
  }

  #apply(source: string, base: number, drawn: DrawnTail): void {
    if (drawn.whole && base > 0) {
      // A link reference definition changes links above it, in settled blocks too: the whole text is drawn again.
      this.#settledText = '';
      this.#settled = [];
      this.#draw();
      return;
    }
    const blocks = drawn.blocks.map((block) => ('html' in block ? { html: this.#page.sanitize(block.html) } : block));
    this.#settled.push(...blocks.slice(0, drawn.settledBlocks));
    this.#settledText += source.slice(base, base + drawn.settledChars);
    this.#tail = blocks.slice(drawn.settledBlocks);
    this.#drawn = source;
  }

  /** The text is not the last one plus more: nothing drawn before stands. */
  #startOver(): void {
    this.#heavy = false;
    this.#settledText = '';
    this.#settled = [];
    this.#careful = false;
    this.#plainAt = [];
    this.#budgetMs = MARKDOWN_LIMITS.textMs;
  }
}
