import type { TraceparentTrust } from '../config/traceparent-trust.js';
import type { Authenticator } from './authenticate.js';

/**
 * Whether a request continues the trace its `traceparent` names (`RUNBRIDGE_TRACEPARENT_TRUST`,
 * docs/security.md#traces), from its `Authorization` header: always with `all`, else only for a key the
 * setting lists. Asked before the request is authenticated (its span starts first), so a bad key is
 * simply not trusted; the request is refused later, as any other.
 */
export function callerTraceTrust(
  trust: TraceparentTrust,
  authenticator: Authenticator,
): (authorization: string | undefined) => boolean {
  if (trust === 'all') return () => true;
  const keys = new Set(trust.keys);
  if (keys.size === 0) return () => false;
  return (authorization) => {
    try {
      return keys.has(authenticator.authenticate(authorization));
    } catch {
      return false;
    }
  };
}
