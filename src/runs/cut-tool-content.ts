import type { ContentPart } from '../models/conversation.js';

/** The note at the end of a tool result the run cut: the model reads it, so it does not take the cut for the end. */
function cutNote(limit: number): string {
  return (
    `[The bridge kept the first ${limit} characters of this result (RUNBRIDGE_TOOL_OUTPUT_STORED_CHARS); ` +
    'the rest was cut.]'
  );
}

/**
 * A tool result's `parts` as the run keeps them (docs/protocol.md §1.7): whole while their text and
 * image data come to at most `limit` characters; past it, the text part that crosses the bound is cut
 * there, an image that crosses it is dropped whole (half an image is none), what follows is dropped,
 * and a note part says so.
 */
export function cutToolContent(
  parts: readonly ContentPart[],
  limit: number,
): { parts: ContentPart[]; truncated: boolean } {
  const kept: ContentPart[] = [];
  let left = limit;
  for (const part of parts) {
    const size = part.type === 'text' ? part.text.length : part.data.length;
    if (size <= left) {
      kept.push(part);
      left -= size;
      continue;
    }
    if (part.type === 'text' && left > 0) kept.push({ type: 'text', text: part.text.slice(0, left) });
    kept.push({ type: 'text', text: cutNote(limit) });
    return { parts: kept, truncated: true };
  }
  return { parts: kept, truncated: false };
}

/** A tool's error message as the run keeps it: at most `limit` characters, then the note on a line of its own. */
export function cutToolText(text: string, limit: number): string {
  return text.length <= limit ? text : `${text.slice(0, limit)}\n${cutNote(limit)}`;
}
