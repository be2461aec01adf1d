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
 * Removes the values of an episode's `secrets` from the text of everything the ORS server says back
 * in its errors — for the whole episode, whichever endpoint or tool produced it (docs/security.md).
 * Every string and number inside `secrets` (nested objects and arrays included) counts, raw and
 * JSON-escaped (FastAPI's 422 bodies quote the request's input).
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

  /** `text` with every secret value replaced by {@link REDACTED}. */
  text(text: string): string {
    let out = text;
    for (const value of this.#anywhere) out = out.split(value).join(REDACTED);
    return this.#standalone ? out.replace(this.#standalone, REDACTED) : out;
  }

  /**
   * `error` with its text redacted: an `OrsError` comes back as a new one with the same code (and so
   * status) and its message and details scrubbed; anything else (an abort reason, say) is ours, holds
   * no server text, and comes back as it is.
   */
  error(error: unknown): unknown {
    if (!(error instanceof OrsError)) return error;
    const message = this.text(error.message);
    const details = this.#value(error.details);
    if (message === error.message && details === error.details) return error;
    return new OrsError(message, { code: error.code, details, cause: error.cause });
  }

  /** `value` with every string inside it redacted; the same value when nothing changed. */
  #value(value: unknown): unknown {
    if (typeof value === 'string') return this.text(value);
    if (Array.isArray(value)) {
      const items = value.map((item) => this.#value(item));
      return items.every((item, index) => item === value[index]) ? value : items;
    }
    if (value !== null && typeof value === 'object') {
      const entries = Object.entries(value).map(([key, item]) => [key, this.#value(item)] as const);
      const changed = entries.some(([key, item]) => item !== (value as Record<string, unknown>)[key]);
      return changed ? Object.fromEntries(entries) : value;
    }
    return value;
  }
}

/** Every string and number inside `secrets`, raw and JSON-escaped, longest first. */
function secretValues(secrets: unknown): string[] {
  const found = new Set<string>();
  const visit = (value: unknown): void => {
    if (typeof value === 'string') {
      if (value === '') return;
      found.add(value);
      found.add(JSON.stringify(value).slice(1, -1));
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
