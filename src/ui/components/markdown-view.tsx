import { useEffect, useMemo, useReducer, useRef } from 'preact/hooks';
import type { DrawnBlock, PlainReason } from '../markdown/draw-tail.js';
import { MarkdownDrawing } from '../markdown/markdown-drawing.js';
import { drawingPage } from '../markdown/page-markdown.js';
import { COPY_FEEDBACK_MS, COPY_LABELS, copyText } from '../state/copy-text.js';
import { FallbackOnError } from './fallback-on-error.js';

/** Why a block is shown as written, in the words of its note. */
const PLAIN_REASONS: Record<PlainReason, string> = {
  depth: 'nested too deeply to draw as Markdown.',
  size: 'too large to draw as Markdown.',
  time: 'it took too long to draw as Markdown.',
  error: 'it could not be drawn as Markdown.',
  unavailable: 'this browser could not draw it as Markdown.',
};

/**
 * Markdown a model wrote, drawn safely (markdown-parser.ts, sanitize-html.ts), incrementally and
 * within bounds (markdown-drawing.ts): as `text` grows, only its last blocks are drawn again; a large
 * or complex text is drawn in the page's worker, never freezing the page; a block that is too deep,
 * too large or too slow to draw is shown as written, with a note that says so. Whatever happens here
 * stays here: the text is shown as written rather than take what is around it down. The Copy buttons
 * of its code blocks copy the code.
 */
export function MarkdownView({ text, class: className }: { text: string; class: string }) {
  return (
    <FallbackOnError
      fallback={
        <div class={`markdown ${className}`}>
          <PlainBlock text={text} reason="error" />
        </div>
      }
    >
      <DrawnMarkdown text={text} class={className} />
    </FallbackOnError>
  );
}

function DrawnMarkdown({ text, class: className }: { text: string; class: string }) {
  const [, redraw] = useReducer((count: number) => count + 1, 0);
  const drawing = useMemo(() => new MarkdownDrawing(drawingPage(() => redraw(undefined))), []);
  useEffect(() => () => drawing.dispose(), [drawing]);
  const root = useRef<HTMLDivElement>(null);
  useCodeCopyButtons(root);
  const { blocks, busy } = drawing.update(text);
  return (
    // Busy while a newer text is drawn in the worker: what shows is the text as it was.
    <div ref={root} class={`markdown ${className}`} aria-busy={busy ? 'true' : undefined}>
      {blocks.map((block, index) => (
        // A block keeps its place as the text grows: settled blocks never move.
        <Block key={index} block={block} />
      ))}
    </div>
  );
}

function Block({ block }: { block: DrawnBlock }) {
  // `dir="auto"` isolates each block: a bidi override the model wrote stays inside it.
  return 'html' in block ? (
    <div class="md-block" dir="auto" dangerouslySetInnerHTML={{ __html: block.html }} />
  ) : (
    <PlainBlock text={block.plain} reason={block.reason} />
  );
}

/** A block shown as written, under a note saying why it is not drawn. */
function PlainBlock({ text, reason }: { text: string; reason: PlainReason }) {
  return (
    <div class="md-block md-plain">
      <p class="md-plain-note">Shown as written: {PLAIN_REASONS[reason]}</p>
      <pre dir="auto">{text}</pre>
    </div>
  );
}

/** One listener for the Copy buttons of every code block under `root`: they are drawn as HTML, not as components. */
function useCodeCopyButtons(root: { current: HTMLElement | null }): void {
  useEffect(() => {
    const element = root.current;
    if (!element) return;
    const timers = new Set<number>();
    const copy = async (event: MouseEvent) => {
      const button = (event.target as Element).closest('.code-copy');
      const code = button?.closest('.code-block')?.querySelector('code');
      const label = button?.firstChild;
      if (!code || !label) return;
      label.textContent = (await copyText(code.textContent ?? '')) ? COPY_LABELS.copied : COPY_LABELS.failed;
      const timer = window.setTimeout(() => {
        timers.delete(timer);
        label.textContent = COPY_LABELS.idle;
      }, COPY_FEEDBACK_MS);
      timers.add(timer);
    };
    element.addEventListener('click', copy);
    return () => {
      element.removeEventListener('click', copy);
      for (const timer of timers) clearTimeout(timer);
    };
  }, [root]);
}
