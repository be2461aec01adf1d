import { OrsError } from '../../errors.js';

/** What a secret is replaced with. */
export const REDACTED = '[redacted]';

/**
 * Values this long or longer are removed wherever they appear. Shorter ones are removed only where
 * they stand alone (not touching a letter or digit): a secret `1` must not turn every "1" of an error
 * ("HTTP 500", "task 12") into `[redacted]`, while `"pin": "1"` quoted back still loses it.
 */
const MIN_ANYWHERE_CHARS = 8;

/**
 * Which keys of the objects {@link Redactor.value} walks hold no text to redact: ids, names and the
 * protocol's own words, which a short secret standing alone (`call_1`, secret `1`) would break.
 */
export interface RedactionKeys {
  /** Keys whose values are kept as they are. */
  kept: ReadonlySet<string>;
  /** Keys whose values are data through and through: every string inside is redacted, whatever its key. */
  data: ReadonlySet<string>;
}

const EVERY_STRING: RedactionKeys = { kept: new Set(), data: new Set() };

/**
 * Removes the values of an episode's `secrets` from text — everything the ORS server says back in
 * its errors, and everything a run publishes or stores — for the whole episode, whichever endpoint or
 * tool produced it (docs/security.md). Every string and number inside `secrets` (nested objects and
 * arrays included) counts, raw, JSON-escaped (FastAPI's 422 bodies quote the request's input) and
 * URL-encoded (a server quoting a URL it was sent).
 */
export class Redactor {
  /** The long values, longest first, so a secret that contains another goes out whole. */
  readonly #anywhere: string[];
  /** The short values, as one pattern that matches each standing alone. */
  readonly #standalone: RegExp | undefined;

  constructor(secrets: unknown) {
    const values = secretValues(secrets);
    this.#anywhere = values.filter((value) => value.length >= MIN_ANYWHERE_CHARS);
    const short = values.filter((value) => value.length < MIN_ANYWHERE_CHARS);
    this.#standalone =
      short.length === 0
        ? undefined
        : new RegExp(`(?<![\\p{L}\\p{N}])(?:${short.map(escapeRegExp).join('|')})(?![\\p{L}\\p{N}])`, 'gu');
  }

  /** True when there is no value to remove (no secrets, or none but empty strings): every call gives its input back. */
  get empty(): boolean {
    return this.#anywhere.length === 0 && this.#standalone === undefined;
  }

  /** `text` with every secret value replaced by {@link REDACTED}. */
  text(text: string): string {
    let out = text;
    for (const value of this.#anywhere) if (out.includes(value)) out = out.split(value).join(REDACTED);
    return this.#standalone ? out.replace(this.#standalone, REDACTED) : out;
  }

  /**
   * How many characters at the end of `text` are the beginning of a long secret value (one of 8
   * characters or more) but not all of it: what a stream must hold back until the next piece tells
   * whether the value follows whole — a server may spell a secret out a few characters per piece.
   */
  heldBack(text: string): number {
    let longest = 0;
    for (const value of this.#anywhere) {
      let at = text.indexOf(value[0]!, Math.max(0, text.length - value.length + 1));
      while (at >= 0 && text.length - at > longest) {
        if (value.startsWith(text.slice(at))) {
          longest = text.length - at;
          break;
        }
        at = text.indexOf(value[0]!, at + 1);
      }
    }
    return longest;
  }

  /**
   * `error` with its text redacted: an `OrsError` comes back as a new one with the same code (and so
   * status) and its message and details scrubbed; anything else (an abort reason, say) is ours, holds
   * no server text, and comes back as it is.
   */
  error(error: unknown): unknown {
    if (!(error instanceof OrsError)) return error;
    const message = this.text(error.message);
    const details = this.value(error.details);
    if (message === error.message && details === error.details) return error;
    return new OrsError(message, { code: error.code, details, cause: error.cause });
  }

  /**
   * `value` (JSON) with every string inside it redacted but those under `keys.kept` (outside
   * `keys.data`); the same value, not a copy, when nothing changed.
   */
  value<T>(value: T, keys: RedactionKeys = EVERY_STRING): T {
    return this.#value(value, keys, false) as T;
  }

  #value(value: unknown, keys: RedactionKeys, inData: boolean): unknown {
    if (typeof value === 'string') return this.text(value);
    if (Array.isArray(value)) {
      // Copied only once something in it changes: most values hold no secret, and some are long
      // lists of numbers (token ids).
      let copy: unknown[] | undefined;
      for (let index = 0; index < value.length; index++) {
        const item: unknown = value[index];
        if (typeof item === 'number' || typeof item === 'boolean' || item === null) continue;
        const clean = this.#value(item, keys, inData);
        if (clean !== item) (copy ??= [...value])[index] = clean;
      }
      return copy ?? value;
    }
    if (value !== null && typeof value === 'object') {
      let copy: Record<string, unknown> | undefined;
      for (const [key, item] of Object.entries(value)) {
        if (!inData && keys.kept.has(key)) continue;
        const clean = this.#value(item, keys, inData || keys.data.has(key));
        if (clean !== item) (copy ??= { ...value })[key] = clean;
      }
      return copy ?? value;
    }
    return value;
  }
}

/** Every string and number inside `secrets`, raw, JSON-escaped and URL-encoded, longest first. */
function secretValues(secrets: unknown): string[] {
  const found = new Set<string>();
  const visit = (value: unknown): void => {
    if (typeof value === 'string') {
      if (value === '') return;
      found.add(value);
      found.add(JSON.stringify(value).slice(1, -1));
      found.add(urlEncoded(value));
    } else if (typeof value === 'number' || typeof value === 'bigint') {
      found.add(String(value));
    } else if (Array.isArray(value)) {
      for (const item of value) visit(item);
    } else if (typeof value === 'object' && value !== null) {
      for (const item of Object.values(value)) visit(item);
    }
  };
  visit(secrets);
  return [...found].sort((a, b) => b.length - a.length);
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
}

/** `value` as a URL writes it; as it is when it cannot be (a lone surrogate). */
function urlEncoded(value: string): string {
  try {
    return encodeURIComponent(value);
  } catch {
    return value;
  }
}
