/**
 * What the fake vLLM server's own parsers make of a completion on its chat endpoint, as vLLM's
 * `qwen3` reasoning parser and `hermes` tool parser do: the `<think>` block as reasoning, each
 * `<tool_call>` block as a call, the rest as the answer — as spans of the text, so the server can
 * stream each token's piece of them in the delta it belongs to.
 */

/** A stretch of the completion's text and what it is; text outside every span is markup (tags, layout). */
export interface OutputSpan {
  kind: 'reasoning' | 'content' | 'arguments';
  start: number;
  end: number;
  /** The call an `arguments` span belongs to. */
  call: number;
}

/** A call the text makes: where its block starts, and its name. */
export interface OutputCall {
  start: number;
  name: string;
}

const HEAD = /^\s*\{\s*"name"\s*:\s*"([^"]*)"\s*,\s*"arguments"\s*:\s*/;

/** The spans and calls of `text`. */
export function parseQwenOutput(text: string): { spans: OutputSpan[]; calls: OutputCall[] } {
  const spans: OutputSpan[] = [];
  const calls: OutputCall[] = [];
  const add = (kind: OutputSpan['kind'], start: number, end: number, call = -1) => {
    // Whitespace around a stretch is layout, as vLLM's parsers leave it out.
    while (start < end && /\s/.test(text[start]!)) start++;
    while (end > start && /\s/.test(text[end - 1]!)) end--;
    if (end > start) spans.push({ kind, start, end, call });
  };
  let at = 0;
  const thinkEnd = text.indexOf('</think>');
  if (thinkEnd >= 0) {
    const open = text.indexOf('<think>');
    add('reasoning', open >= 0 && open < thinkEnd ? open + '<think>'.length : 0, thinkEnd);
    at = thinkEnd + '</think>'.length;
  }
  for (;;) {
    const callStart = text.indexOf('<tool_call>', at);
    if (callStart < 0) break;
    add('content', at, callStart);
    const bodyStart = callStart + '<tool_call>'.length;
    const closing = text.indexOf('</tool_call>', bodyStart);
    const bodyEnd = closing < 0 ? text.length : closing;
    const body = text.slice(bodyStart, bodyEnd);
    const head = HEAD.exec(body);
    calls.push({ start: callStart, name: head?.[1] ?? '' });
    if (head) {
      const outer = body.lastIndexOf('}');
      add('arguments', bodyStart + head[0].length, bodyStart + outer, calls.length - 1);
    }
    at = closing < 0 ? text.length : closing + '</tool_call>'.length;
  }
  add('content', at, text.length);
  return { spans, calls };
}
