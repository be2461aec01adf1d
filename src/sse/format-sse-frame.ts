/**
 * One Server-Sent Events frame. Every field is optional; a frame with only `comment` is a keep-alive.
 */
export interface SseFrame {
  id?: string | number;
  event?: string;
  /** Multi-line data is written as one `data:` line per line, as the SSE spec requires. */
  data?: string;
  /** Reconnection delay in milliseconds (`retry:`). */
  retry?: number;
  comment?: string;
}

const LINE_BREAK = /\r\n|\r|\n/;

/**
 * Formats `frame` as SSE text with LF line endings, ended by a blank line. An `id` or `event`
 * containing CR or LF would let a value inject frames, so it is refused with a `TypeError`.
 */
export function formatSseFrame(frame: SseFrame): string {
  let out = '';
  if (frame.comment !== undefined) {
    for (const line of frame.comment.split(LINE_BREAK)) out += `: ${line}\n`;
  }
  if (frame.retry !== undefined) out += `retry: ${Math.max(0, Math.floor(frame.retry))}\n`;
  if (frame.id !== undefined) out += `id: ${singleLine('id', String(frame.id))}\n`;
  if (frame.event !== undefined) out += `event: ${singleLine('event', frame.event)}\n`;
  if (frame.data !== undefined) {
    for (const line of frame.data.split(LINE_BREAK)) out += `data: ${line}\n`;
  }
  return `${out}\n`;
}

function singleLine(field: string, value: string): string {
  if (LINE_BREAK.test(value) || value.includes('\0')) {
    throw new TypeError(`SSE ${field} must not contain CR, LF or NUL: ${JSON.stringify(value)}`);
  }
  return value;
}
