/**
 * How openai-python (`openai/_streaming.py`, whose decoder came from httpx-sse) reads a stream, ported
 * line for line so tests can hold our streams to it without Python packages this machine cannot
 * install. Two of its habits matter here, and a spec-following parser hides both:
 *
 * - every blank line dispatches a message once *any* field was seen — a frame of only `retry:`
 *   becomes a message with empty data;
 * - `id:` is never reset between frames, so once a frame had an id, every later blank line
 *   dispatches — a keep-alive comment ended by a blank line becomes a message with empty data.
 *
 * `Stream.__stream__` then stops at data starting with `[DONE]` and `json.loads` every other
 * message's data, raising on an empty one (`JSONDecodeError: Expecting value`).
 */

/** A message as `SSEDecoder.decode` returns it. */
export interface PythonSse {
  event: string | null;
  data: string;
  id: string | null;
  retry: number | null;
}

/** Splits bytes into lines at CR, LF or CRLF, as `_SSELineDecoder` does (a CRLF split over two chunks counts once). */
class LineDecoder {
  #buffer = '';
  #skipLf = false;

  *feed(chunk: string): Generator<string> {
    let start = 0;
    for (let end = 0; end < chunk.length; end++) {
      const char = chunk[end];
      if (char !== '\r' && char !== '\n') continue;
      if (this.#skipLf && end === start && char === '\n') {
        this.#skipLf = false;
        start = end + 1;
        continue;
      }
      this.#skipLf = false;
      const line = this.#buffer + chunk.slice(start, end);
      this.#buffer = '';
      this.#skipLf = char === '\r';
      start = end + 1;
      yield line;
    }
    if (start < chunk.length) {
      this.#skipLf = false;
      this.#buffer += chunk.slice(start);
    }
  }

  *finish(): Generator<string> {
    if (this.#buffer !== '') {
      const line = this.#buffer;
      this.#buffer = '';
      yield line;
    }
  }
}

/** `SSEDecoder`: one line at a time; a blank line may dispatch. */
class Decoder {
  #event: string | null = null;
  #data: string[] = [];
  #lastEventId: string | null = null;
  #retry: number | null = null;

  decode(line: string): PythonSse | undefined {
    if (line === '') {
      if (!this.#event && this.#data.length === 0 && !this.#lastEventId && this.#retry === null) return undefined;
      const sse: PythonSse = {
        event: this.#event,
        data: this.#data.join('\n'),
        id: this.#lastEventId,
        retry: this.#retry,
      };
      // As in the original: the last event id is kept, per its reading of the SSE spec.
      this.#event = null;
      this.#data = [];
      this.#retry = null;
      return sse;
    }
    if (line.startsWith(':')) return undefined;
    const colon = line.indexOf(':');
    const field = colon < 0 ? line : line.slice(0, colon);
    let value = colon < 0 ? '' : line.slice(colon + 1);
    if (value.startsWith(' ')) value = value.slice(1);
    if (field === 'event') this.#event = value;
    else if (field === 'data') this.#data.push(value);
    else if (field === 'id') {
      if (!value.includes('\0')) this.#lastEventId = value;
    } else if (field === 'retry') {
      // Python's int() accepts what Number() does for the values a server sends; others are ignored.
      const retry = /^\s*[+-]?\d+\s*$/.test(value) ? Number(value) : Number.NaN;
      if (!Number.isNaN(retry)) this.#retry = retry;
    }
    return undefined;
  }
}

/** Every message openai-python's decoder dispatches from `body`, in order. */
export async function decodeLikeOpenAiPython(body: ReadableStream<Uint8Array>): Promise<PythonSse[]> {
  const lines = new LineDecoder();
  const decoder = new Decoder();
  const text = new TextDecoder();
  const messages: PythonSse[] = [];
  const take = (line: string) => {
    const sse = decoder.decode(line);
    if (sse) messages.push(sse);
  };
  for await (const chunk of body) for (const line of lines.feed(text.decode(chunk, { stream: true }))) take(line);
  for (const line of lines.finish()) take(line);
  return messages;
}

/**
 * What `Stream.__stream__` yields from `body`: the parsed JSON of each message until `[DONE]`. Throws
 * the way it does — a `SyntaxError` where Python raises `JSONDecodeError`, and an `APIError`-like
 * error for a message carrying `{"error"}`.
 */
export async function streamLikeOpenAiPython(body: ReadableStream<Uint8Array>): Promise<unknown[]> {
  const items: unknown[] = [];
  for (const sse of await decodeLikeOpenAiPython(body)) {
    if (sse.data.startsWith('[DONE]')) break;
    const data: unknown = JSON.parse(sse.data);
    if (data !== null && typeof data === 'object' && 'error' in data && data.error) {
      throw new Error(`APIError: ${JSON.stringify(data.error)}`);
    }
    items.push(data);
  }
  return items;
}
