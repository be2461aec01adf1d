import { createHash } from 'node:crypto';
import { canonicalJson } from '../../src/runs/request-hasher.js';

/**
 * SHA-256 of `value` as the idempotency hash's text, without a key: a request body hashed as anyone
 * holding a store's dump could hash guesses of it. Tests check that what the stores keep is not this.
 */
export function unkeyedHash(value: unknown): string {
  return createHash('sha256').update(canonicalJson(value)).digest('hex');
}
