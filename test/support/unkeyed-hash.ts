import { createHash } from 'node:crypto';

/**
 * SHA-256 of `value` as JSON with keys sorted at every level: a request body hashed without a key, as
 * anyone holding a store's dump could hash guesses of it. Tests check that what the stores keep is not this.
 */
export function unkeyedHash(value: unknown): string {
  return createHash('sha256').update(canonicalJson(value)).digest('hex');
}

function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value).sort(([x], [y]) => (x < y ? -1 : x > y ? 1 : 0));
    return `{${entries.map(([key, item]) => `${JSON.stringify(key)}:${canonicalJson(item)}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}
