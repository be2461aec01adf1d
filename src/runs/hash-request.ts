import { createHash } from 'node:crypto';
import type { RunRequest } from '../protocol/run-request.js';

/**
 * A stable hash of a request body (key order does not matter), secrets included but never stored:
 * what an `Idempotency-Key` is bound to, so the same key with another body is told apart.
 */
export function hashRequest(request: RunRequest): string {
  return createHash('sha256').update(canonicalJson(request)).digest('hex');
}

function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([key, item]) => `${JSON.stringify(key)}:${canonicalJson(item)}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}
