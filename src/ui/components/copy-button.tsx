import { useEffect, useState } from 'preact/hooks';
import { COPY_FEEDBACK_MS, COPY_LABELS, copyText } from '../state/copy-text.js';

/**
 * A Copy button: puts `text` on the clipboard and says so for a moment. `what` ends its name for
 * screen readers ("Copy the answer of turn 2 as Markdown"); the button shows "Copy".
 */
export function CopyButton({ text, what }: { text: string; what: string }) {
  const [state, setState] = useState<keyof typeof COPY_LABELS>('idle');
  useEffect(() => {
    if (state === 'idle') return;
    const timer = setTimeout(() => setState('idle'), COPY_FEEDBACK_MS);
    return () => clearTimeout(timer);
  }, [state]);
  return (
    <button
      type="button"
      class="button button-small button-quiet copy-button"
      onClick={async () => setState((await copyText(text)) ? 'copied' : 'failed')}
    >
      {COPY_LABELS[state]}
      <span class="visually-hidden"> {what}</span>
    </button>
  );
}
