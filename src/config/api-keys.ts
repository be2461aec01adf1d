import { type Kind, optionalText, splitCommas } from './setting-kinds.js';

/** The shortest key accepted: a key short enough to type from memory is short enough to guess. */
const MIN_KEY_CHARS = 16;

/**
 * Bearer keys, comma-separated; unset or blank is none (keyless, loopback only). A list set on
 * purpose that holds no key (`" , "`) is refused rather than read as keyless, and so is any key
 * under 16 characters. Messages count characters and never show a key.
 */
export function apiKeys(): Kind<string[]> {
  return {
    schema: optionalText.transform((text, context) => {
      const keys = splitCommas(text);
      if (text !== undefined && keys.length === 0) {
        context.issues.push({
          code: 'custom',
          input: text,
          message:
            'is set but holds no key, only commas and blanks: list the keys (make one with openssl rand -hex 32), ' +
            'or unset it to serve without keys on loopback only',
        });
      }
      const short = keys.flatMap((key, index) => (key.length < MIN_KEY_CHARS ? [{ position: index + 1, key }] : []));
      if (short.length > 0) {
        const lengths = short.map(({ position, key }, at) =>
          at > 0
            ? `key ${position} is ${key.length}`
            : `key ${position} is ${key.length} character${key.length === 1 ? '' : 's'} long`,
        );
        context.issues.push({
          code: 'custom',
          input: text,
          message: `${lengths.join(' and ')}; each needs at least ${MIN_KEY_CHARS} characters (make one with openssl rand -hex 32)`,
        });
      }
      return keys;
    }),
    accepts: `comma-separated keys, each at least ${MIN_KEY_CHARS} characters`,
    default: '— (no authentication, loopback only)',
    secret: true,
  };
}
