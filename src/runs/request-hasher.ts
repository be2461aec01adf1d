import { createHmac, hkdfSync } from 'node:crypto';
/** Hashes a request body (a run's, a rollout batch's) as an `Idempotency-Key` is bound to it. */
export type RequestHasher = (request: object) => string;

/**
 * Hashes a request body (key order does not matter), secrets included, for an `Idempotency-Key` to be
 * bound to: the same key with another body is told apart by it. The hash is stored beside the request
 * (in Redis's `idem:*` keys, in memory's key table), which keeps everything but `secrets`; a plain
 * SHA-256 let anyone with a dump try guesses of a short secret offline (a 4-digit PIN in milliseconds).
 * So it is an HMAC under a key derived from `secret` — the secret every instance shares, so a key used
 * on one instance dedupes on another — and a dump says nothing without it. Hex, as the Redis script
 * that compares hashes reads them.
 */
export function requestHasher(secret: Buffer): RequestHasher {
  // A key of its own for this one use, whatever else the secret may serve.
  const key = Buffer.from(hkdfSync('sha256', secret, Buffer.alloc(0), 'runbridge idempotency request hash', 32));
  return (request) => createHmac('sha256', key).update(canonicalJson(request)).digest('hex');
}

/** `value` as JSON with keys sorted at every level: the same text for the same body, however its keys were ordered. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([key, item]) => `${JSON.stringify(key)}:${canonicalJson(item)}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}
