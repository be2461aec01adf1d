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
 * arrays included) counts, raw and JSON-escaped (FastAPI's 422 bodies quote the request's input).
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
      const items = value.map((item) => this.#value(item, keys, inData));
      return items.every((item, index) => item === value[index]) ? value : items;
    }
    if (value !== null && typeof value === 'object') {
      const entries = Object.entries(value).map(([key, item]) => {
        if (!inData && keys.kept.has(key)) return [key, item] as const;
        return [key, this.#value(item, keys, inData || keys.data.has(key))] as const;
      });
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
