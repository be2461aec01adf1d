import { commaList, type Kind } from './setting-kinds.js';

/** Whose W3C `traceparent` a request continues: every caller's, or only those of the keys listed (by label). */
export type TraceparentTrust = 'all' | { keys: readonly string[] };

/** A key's label, as the log writes it: `key_` and the first 16 hex digits of the key's SHA-256. */
const KEY_LABEL = /^key_[\da-f]{16}$/;

/**
 * `all`, `none`, or comma-separated key labels (`key_…`, as the access lines name the keys, never the
 * keys themselves); unset is `undefined`, for the loader to derive from the number of keys.
 */
export function traceparentTrust(): Kind<TraceparentTrust | undefined> {
  return {
    schema: commaList.transform((items, context): TraceparentTrust | undefined => {
      if (items.length === 0) return undefined;
      const word = items.length === 1 ? items[0]!.toLowerCase() : undefined;
      if (word === 'all') return 'all';
      if (word === 'none') return { keys: [] };
      const wrong = items.flatMap((label, index) => (KEY_LABEL.test(label) ? [] : [index + 1]));
      if (wrong.length > 0) {
        context.issues.push({
          code: 'custom',
          input: `item ${wrong.join(', ')}`,
          message:
            `item ${wrong.join(', ')} is not a key label: write all, none, or the labels of the trusted keys as the ` +
            "access lines write them (key_ and 16 hex digits: the first 8 bytes of the key's SHA-256 in hex)",
        });
      }
      return { keys: items };
    }),
    accepts: '`all`, `none`, or comma-separated key labels (`key_` and 16 hex digits)',
    default: '—',
    // A message about a value it cannot use does not show it: what stands where a label belongs may be a key.
    secret: true,
  };
}
