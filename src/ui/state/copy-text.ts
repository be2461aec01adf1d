/** What a Copy button says: before, once the text is on the clipboard, and when the browser refused. */
export const COPY_LABELS = { idle: 'Copy', copied: 'Copied', failed: 'Copy failed' } as const;

/** How long a Copy button says what happened before it says "Copy" again. */
export const COPY_FEEDBACK_MS = 2000;

/**
 * Puts `text` on the clipboard; resolves to whether the browser took it. The Clipboard API needs a
 * secure context (https, or a bridge on loopback) and, in some browsers, a click just before.
 */
export async function copyText(text: string): Promise<boolean> {
  try {
    await navigator.clipboard.writeText(text);
    return true;
  } catch {
    return false;
  }
}
