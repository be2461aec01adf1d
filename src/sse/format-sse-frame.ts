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
const BREAK_OR_NUL = /[\r\n\0]/;

/**
 * Formats `frame` as SSE text with LF line endings, ended by a blank line. An `id` or `event`
 * containing CR, LF or NUL would let a value inject frames, so it is refused with a `TypeError`.
 * The text comes back as one flat string: a caller may keep it, or slices of it, without holding
 * the pieces it was joined from.
 */
export function formatSseFrame(frame: SseFrame): string {
  const head = fieldsBeforeData(frame);
  const { data } = frame;
  if (data === undefined) return `${head}\n`;
  // Written as one line, then checked in place: data is nearly always JSON, which never holds a line
  // break, and searching the frame flattens it once where checking `data` first would copy its
  // characters twice (a run's events are all framed here, `bench/`, benchmark 1).
  const text = `${head}data: ${data}\n\n`;
  const start = text.length - 2 - data.length;
  if (text.indexOf('\n', start) === text.length - 2 && text.indexOf('\r', start) === -1) return text;
  return `${head}${lines('data: ', data)}\n`;
}

/**
 * The lines of `frame` without the blank line that ends it, for a frame written in pieces (a grpo
 * group's rows, one `data:` line each): the reader dispatches the frame once the blank line follows.
 * Refuses what {@link formatSseFrame} refuses.
 */
export function formatSseFields(frame: SseFrame): string {
  const head = fieldsBeforeData(frame);
  return frame.data === undefined ? head : `${head}${lines('data: ', frame.data)}`;
}

function fieldsBeforeData(frame: SseFrame): string {
  let out = '';
  if (frame.comment !== undefined) out += lines(': ', frame.comment);
  if (frame.retry !== undefined) out += `retry: ${Math.max(0, Math.floor(frame.retry))}\n`;
  // A number's digits need no check: a run's events are numbered by their seq.
  if (frame.id !== undefined) out += `id: ${typeof frame.id === 'number' ? frame.id : singleLine('id', frame.id)}\n`;
  if (frame.event !== undefined) out += `event: ${singleLine('event', frame.event)}\n`;
  return out;
}

/** `text` as lines of `field`, one per line of it. */
function lines(field: string, text: string): string {
  let out = '';
  for (const line of text.split(LINE_BREAK)) out += `${field}${line}\n`;
  return out;
}

function singleLine(field: string, value: string): string {
  if (BREAK_OR_NUL.test(value)) {
    throw new TypeError(`SSE ${field} must not contain CR, LF or NUL: ${JSON.stringify(value)}`);
  }
  return value;
}
