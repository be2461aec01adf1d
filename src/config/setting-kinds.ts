import { z } from 'zod';
import type { Setting } from './setting.js';

/**
 * The kinds of value a setting takes: each reads the variable's text with its bounds and default,
 * and says what it accepts and what the default is, so the table states each of those once.
 */
export type Kind<T> = Pick<Setting<T>, 'schema' | 'accepts' | 'default' | 'secret'>;

/** Node's timers hold at most 2^31 - 1 ms. */
const MAX_TIMER_SECONDS = Math.floor((2 ** 31 - 1) / 1000);

const code = (value: string | number) => `\`${value}\``;

/**
 * A duration in seconds, read as whole milliseconds: at least 1 ms (0 would spin a timer) and at
 * most Node's longest timer, about 24.8 days (a longer one fires after 1 ms instead). With `zero`,
 * 0 is taken too, for a duration whose 0 means "never wait".
 */
export function seconds(fallback: number, { zero = false }: { zero?: boolean } = {}): Kind<number> {
  const least = zero ? 0 : 0.001;
  return {
    schema: z.coerce
      .number()
      .min(least, zero ? 'must be 0 or more' : 'must be at least 0.001 (one millisecond)')
      .max(MAX_TIMER_SECONDS, `must be at most ${MAX_TIMER_SECONDS} (Node's longest timer)`)
      .default(fallback)
      .transform((value) => Math.round(value * 1000)),
    accepts: `seconds, ${least} to ${MAX_TIMER_SECONDS}`,
    default: code(fallback),
  };
}

/** A whole number from `min` (1 unless said) to `max`. */
export function wholeNumber(fallback: number, { min = 1, max }: { min?: number; max?: number } = {}): Kind<number> {
  const bounded = z.coerce.number().int().min(min);
  return {
    schema: (max === undefined ? bounded : bounded.max(max)).default(fallback),
    accepts: max === undefined ? `a whole number, at least ${min}` : `a whole number, ${min} to ${max}`,
    default: code(fallback),
  };
}

/** A count of bytes (at least 1); the page shows a default of whole mebibytes in MiB too. */
export function bytes(fallback: number): Kind<number> {
  const mebibytes = fallback / 2 ** 20;
  return {
    ...wholeNumber(fallback),
    accepts: 'bytes, at least 1',
    default: Number.isInteger(mebibytes) ? `${code(fallback)} (${mebibytes} MiB)` : code(fallback),
  };
}

/** Text, trimmed; unset or blank is `undefined`. */
export const optionalText = z
  .string()
  .optional()
  .transform((value) => (value === undefined || value.trim() === '' ? undefined : value.trim()));

/** Text of at least one character. */
export function text(fallback: string): Kind<string> {
  return { schema: z.string().min(1).default(fallback), accepts: 'text', default: code(fallback) };
}

/** Text without a default, `undefined` when unset or blank. */
export function optional(accepts = 'text'): Kind<string | undefined> {
  return { schema: optionalText, accepts, default: '—' };
}

/** A whole number from `min` without a default, `undefined` when unset or blank (the loader derives one). */
export function optionalWholeNumber(min = 1): Kind<number | undefined> {
  return {
    schema: optionalText.pipe(z.coerce.number<string>().int().min(min).optional()),
    accepts: `a whole number, at least ${min}`,
    default: '—',
  };
}

/** The comma-separated items of `text`, trimmed, blanks dropped; none when `text` is undefined. */
export function splitCommas(text: string | undefined): string[] {
  return (text ?? '')
    .split(',')
    .map((item) => item.trim())
    .filter((item) => item !== '');
}

/** Comma-separated items, trimmed, blanks dropped; unset is none. */
export const commaList = optionalText.transform(splitCommas);

/** A {@link commaList} of what `accepts` says. */
export function list(accepts: string): Kind<string[]> {
  return { schema: commaList, accepts, default: '—' };
}

/**
 * A URL whose scheme `protocol` matches (any scheme when not given), `undefined` when unset or blank;
 * `base` drops trailing slashes, for a URL that paths are joined onto.
 */
export function optionalUrl(
  accepts: string,
  { protocol, base = false }: { protocol?: RegExp; base?: boolean } = {},
): Kind<string | undefined> {
  const url = optionalText.pipe((protocol === undefined ? z.url() : z.url({ protocol })).optional());
  return {
    schema: base ? url.transform((value) => value?.replace(/\/+$/, '')) : url,
    accepts,
    default: '—',
  };
}

const ON = ['1', 'true', 'on', 'yes'] as const;
const OFF = ['0', 'false', 'off', 'no'] as const;

/** A switch: `1`/`true`/`on`/`yes` or `0`/`false`/`off`/`no`, in any case; unset or empty is `fallback`. */
export function flag(fallback: boolean): Kind<boolean> {
  return {
    schema: z
      .string()
      .optional()
      .transform((value) => value?.trim().toLowerCase() || undefined)
      .pipe(z.enum([...ON, ...OFF], 'must be 1 or 0 (or true/false, on/off)').optional())
      .transform((value) => (value === undefined ? fallback : (ON as readonly string[]).includes(value))),
    accepts: '`1` or `0` (also `true`/`false`, `on`/`off`, `yes`/`no`)',
    default: code(fallback ? 1 : 0),
  };
}

/** One of `choices`, in any case; unset or empty is `fallback`. */
export function oneOf<const Choice extends string>(choices: readonly Choice[], fallback: Choice): Kind<Choice> {
  return {
    schema: z
      .string()
      .optional()
      .transform((value) => value?.trim().toLowerCase() || fallback)
      .pipe(z.enum(choices as [Choice, ...Choice[]], `must be one of ${choices.join(', ')}`)),
    accepts: choices.map(code).join(', '),
    default: code(fallback),
  };
}

/** One of `choices`, in any case, without a default: `undefined` when unset or blank (the loader derives one). */
export function optionalOneOf<const Choice extends string>(choices: readonly Choice[]): Kind<Choice | undefined> {
  return {
    schema: optionalText
      .transform((value) => value?.toLowerCase())
      .pipe(z.enum(choices as [Choice, ...Choice[]], `must be one of ${choices.join(', ')}`).optional()),
    accepts: choices.map(code).join(', '),
    default: '—',
  };
}

/** A bearer token of at least 16 characters, `undefined` when unset or blank; never shown in messages. */
export function longSecret(): Kind<string | undefined> {
  return {
    schema: optionalText.pipe(z.string().min(16, 'must be at least 16 characters').optional()),
    accepts: 'text, at least 16 characters',
    default: '—',
    secret: true,
  };
}

/** An `http(s)` URL template holding `{trace_id}`, `undefined` when unset or blank. */
export function traceUrlTemplate(): Kind<string | undefined> {
  return {
    schema: optionalText.pipe(
      z
        .string()
        .refine((value) => value.includes('{trace_id}'), 'must hold {trace_id} where the trace id goes')
        .refine(
          (value) => /^https?:$/.test(safeProtocol(value.replaceAll('{trace_id}', '0'))),
          'must be an http:// or https:// URL',
        )
        .optional(),
    ),
    accepts: 'an `http://` or `https://` URL holding `{trace_id}`',
    default: '—',
  };
}

function safeProtocol(url: string): string {
  try {
    return new URL(url).protocol;
  } catch {
    return '';
  }
}
