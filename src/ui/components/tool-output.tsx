import { useMemo, useState } from 'preact/hooks';
import { highlightCode } from '../markdown/highlight-code.js';
import { outputFormat } from '../markdown/output-format.js';
import { sanitizeHtml } from '../markdown/sanitize-html.js';
import { MarkdownView } from './markdown-view.js';

/** Output longer than this many lines or characters is shown cut, with a button to see it all. */
const PREVIEW_LINES = 8;
const PREVIEW_CHARS = 600;

/**
 * A tool call's output in its card: JSON pretty-printed and highlighted, Markdown drawn, anything
 * else as it came (`outputFormat` decides) — cut to a preview when long, with a button that shows it
 * all (and says so to screen readers).
 */
export function ToolOutput({ id, output, truncated }: { id: string; output: string; truncated: boolean }) {
  const [expanded, setExpanded] = useState(false);
  const format = useMemo(() => outputFormat(output), [output]);
  const lines = format.text.split('\n');
  const long = lines.length > PREVIEW_LINES || format.text.length > PREVIEW_CHARS;
  const cut = long && !expanded;
  const shown = cut && format.kind !== 'markdown' ? preview(lines) : format.text;
  return (
    <div class="tool-output">
      <div class="tool-output-label">Output{format.kind === 'text' ? null : ` · ${format.kind}`}</div>
      {format.kind === 'markdown' ? (
        // Markdown is cut by height, not by characters: a cut through a table or a fence would draw something else.
        <div id={id} class={cut ? 'tool-markdown is-cut' : 'tool-markdown'}>
          <MarkdownView class="tool-markdown-body" text={shown} />
        </div>
      ) : (
        <pre id={id} class={cut ? 'is-cut' : undefined} dir="auto">
          {format.kind === 'json' ? (
            <code dangerouslySetInnerHTML={{ __html: sanitizeHtml(highlightCode(shown, 'json')) }} />
          ) : (
            shown
          )}
        </pre>
      )}
      {truncated ? <p class="tool-note">The bridge cut this output (RUNBRIDGE_TOOL_OUTPUT_EVENT_CHARS).</p> : null}
      {long ? (
        <button
          type="button"
          class="link-button"
          aria-expanded={expanded}
          aria-controls={id}
          onClick={() => setExpanded(!expanded)}
        >
          {expanded
            ? 'Show less'
            : lines.length > PREVIEW_LINES
              ? `Show all ${lines.length} lines`
              : `Show all ${format.text.length} characters`}
        </button>
      ) : null}
    </div>
  );
}

function preview(lines: string[]): string {
  const text = lines.slice(0, PREVIEW_LINES).join('\n');
  return text.length > PREVIEW_CHARS ? `${text.slice(0, PREVIEW_CHARS)}…` : `${text}\n…`;
}
