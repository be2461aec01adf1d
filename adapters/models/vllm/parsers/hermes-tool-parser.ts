import { isDeepStrictEqual } from 'node:util';
import { cutAtTag } from './held-tag.js';
import type { ToolParser, ToolParserOptions, ToolParserOutput } from './tool-parser.js';

const OPEN = '<tool_call>';
const CLOSE = '</tool_call>';
/** The start of a call as Hermes-format models write it, up to where the arguments begin. */
const HEAD = /^\s*\{\s*"name"\s*:\s*"((?:[^"\\]|\\.)*)"\s*,\s*"arguments"\s*:\s*/;
/** A name anywhere in a call that is not valid JSON. */
const ANY_NAME = /"name"\s*:\s*"((?:[^"\\]|\\.)*)"/;

interface OpenCall {
  id: string;
  /** The text between the tags so far. */
  body: string;
  /** Set once the head is read: the call has been announced. */
  name?: string;
  /** Where the arguments begin in `body`. */
  argumentsAt?: number;
  /** How much of the arguments text has been streamed. */
  streamed: number;
}

/**
 * The `hermes` format (Hermes, Qwen2.5, Qwen3 and many fine-tunes): each call is
 * `<tool_call>{"name": …, "arguments": {…}}</tool_call>`, one or several per turn, text around them
 * being the answer. The arguments stream as the model writes them, but for the object's closing brace
 * and whitespace, held back until it is clear they close the call; the whole call's arguments are the
 * model's own text when it parses to what the call holds (else that value as JSON). A call that is not
 * valid JSON keeps the name found in it (or none) and the text written as its arguments.
 */
export class HermesToolParser implements ToolParser {
  readonly #options: ToolParserOptions;
  #buffer = '';
  #call: OpenCall | undefined;

  constructor(options: ToolParserOptions) {
    this.#options = options;
  }

  push(delta: string): ToolParserOutput[] {
    this.#buffer += delta;
    const out: ToolParserOutput[] = [];
    for (;;) {
      const call = this.#call;
      if (call === undefined) {
        const cut = cutAtTag(this.#buffer, OPEN);
        if (cut.before !== '') out.push({ type: 'text', text: cut.before });
        this.#buffer = cut.rest;
        if (!cut.found) return out;
        this.#call = { id: this.#options.newCallId(), body: '', streamed: 0 };
        continue;
      }
      const cut = cutAtTag(this.#buffer, CLOSE);
      call.body += cut.before;
      this.#buffer = cut.rest;
      if (!cut.found) {
        this.#stream(call, out);
        return out;
      }
      this.#finish(call, out);
      this.#call = undefined;
    }
  }

  end(): ToolParserOutput[] {
    const out: ToolParserOutput[] = [];
    const rest = this.#buffer;
    this.#buffer = '';
    if (this.#call) {
      this.#call.body += rest;
      this.#finish(this.#call, out);
      this.#call = undefined;
    } else if (rest !== '') {
      out.push({ type: 'text', text: rest });
    }
    return out;
  }

  /** Announces the call once its name is read, then streams the arguments written so far. */
  #stream(call: OpenCall, out: ToolParserOutput[]): void {
    if (call.argumentsAt === undefined) {
      const head = HEAD.exec(call.body);
      // Whitespace before the arguments may still be arriving until their first character has.
      if (head === null || head[0].length === call.body.length) return;
      call.name = jsonString(head[1]!);
      call.argumentsAt = head[0].length;
      out.push({ type: 'tool-call-delta', id: call.id, name: call.name, delta: '' });
    }
    // The closing brace of the call's object may be arriving: hold it back with any whitespace.
    this.#streamTo(call, call.body.slice(call.argumentsAt).replace(/\s*\}?\s*$/, ''), out);
  }

  #streamTo(call: OpenCall, text: string, out: ToolParserOutput[]): void {
    if (text.length <= call.streamed || call.name === undefined) return;
    out.push({ type: 'tool-call-delta', id: call.id, name: call.name, delta: text.slice(call.streamed) });
    call.streamed = text.length;
  }

  #finish(call: OpenCall, out: ToolParserOutput[]): void {
    this.#stream(call, out);
    const written =
      call.argumentsAt === undefined ? undefined : call.body.slice(call.argumentsAt).replace(/\s*\}\s*$|\s+$/, '');
    if (written !== undefined) this.#streamTo(call, written, out);
    const parsed = parseCall(call.body);
    const name = parsed?.name ?? call.name ?? nameIn(call.body);
    const args = parsed === undefined ? (written ?? call.body.trim()) : argumentsText(parsed.arguments, written);
    if (call.name === undefined) out.push({ type: 'tool-call-delta', id: call.id, name, delta: args });
    out.push({ type: 'tool-call', call: { id: call.id, name, arguments: args } });
  }
}

/** The call's object, when the body is one with a string `name`. */
function parseCall(body: string): { name: string; arguments: unknown } | undefined {
  try {
    const value: unknown = JSON.parse(body);
    if (typeof value !== 'object' || value === null || Array.isArray(value)) return undefined;
    const { name, arguments: args } = value as Record<string, unknown>;
    return typeof name === 'string' ? { name, arguments: args } : undefined;
  } catch {
    return undefined;
  }
}

/** The arguments as text: a string as the model gave it, else its own text when that is what it parses to. */
function argumentsText(value: unknown, written: string | undefined): string {
  if (typeof value === 'string') return value;
  if (value === undefined) return '{}';
  if (written !== undefined) {
    try {
      if (isDeepStrictEqual(JSON.parse(written), value)) return written;
    } catch {
      // Not the model's own text (a head this parser misread): the value as JSON below.
    }
  }
  return JSON.stringify(value);
}

function nameIn(body: string): string {
  const match = ANY_NAME.exec(body);
  return match === null ? '' : jsonString(match[1]!);
}

/** The text of a JSON string's inside, escapes read; as written when an escape is not JSON's. */
function jsonString(inside: string): string {
  try {
    return JSON.parse(`"${inside}"`) as string;
  } catch {
    return inside;
  }
}
