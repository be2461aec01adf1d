import { useEffect, useMemo, useRef } from 'preact/hooks';
import { MarkdownBlocks } from '../markdown/markdown-blocks.js';
import { renderBlock } from '../markdown/render-block.js';
import { COPY_FEEDBACK_MS, COPY_LABELS, copyText } from '../state/copy-text.js';

/**
 * Markdown a model wrote, drawn safely (markdown-parser.ts, sanitize-html.ts) and incrementally: as
 * `text` grows, only its last block is lexed and drawn again (markdown-blocks.ts); the blocks before
 * it keep their HTML, so Preact leaves their DOM alone. The Copy buttons of its code blocks copy the code.
 */
export function MarkdownView({ text, class: className }: { text: string; class: string }) {
  const blocks = useMemo(() => new MarkdownBlocks(), []);
  const root = useRef<HTMLDivElement>(null);

  // One listener for the Copy buttons of every code block: they are drawn as HTML, not as components.
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
  }, []);

  return (
    <div ref={root} class={`markdown ${className}`}>
      {blocks.update(text).map((token, index) => (
        // A block keeps its place as the text grows: settled blocks never move.
        // `dir="auto"` isolates each block: a bidi override the model wrote stays inside it.
        <div key={index} class="md-block" dir="auto" dangerouslySetInnerHTML={{ __html: renderBlock(token) }} />
      ))}
    </div>
  );
}
