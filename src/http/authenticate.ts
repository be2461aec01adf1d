import { createHash, timingSafeEqual } from 'node:crypto';
import { UnauthorizedError } from '../errors.js';

/** The owner of every run when no API keys are configured (the server then listens on loopback only). */
export const LOCAL_OWNER = 'local';

/**
 * Checks `Authorization: Bearer <key>` against the configured keys and names the caller. Keys are
 * compared as SHA-256 digests with `timingSafeEqual`, against every key without stopping early, so
 * timing reveals neither a key nor which one matched. The owner id is derived from the key's digest:
 * runs are scoped to it and the key itself is never stored.
 */
export class Authenticator {
  readonly #digests: Buffer[];

  constructor(keys: readonly string[]) {
    this.#digests = keys.map(digest);
  }

  /** True when keys are configured and every request must carry one. */
  get required(): boolean {
    return this.#digests.length > 0;
  }

  /** The owner id for an `Authorization` header value, or 401. */
  authenticate(header: string | undefined): string {
    if (!this.required) return LOCAL_OWNER;
    const match = /^Bearer\s+(\S+)\s*$/i.exec(header ?? '');
    if (!match) throw new UnauthorizedError();
    const presented = digest(match[1]!);
    let matched: Buffer | undefined;
    for (const known of this.#digests) {
      if (timingSafeEqual(known, presented) && !matched) matched = known;
    }
    if (!matched)
      throw new UnauthorizedError(
        'The API key is not valid. Send "Authorization: Bearer <key>" with a configured key.',
      );
    return `key_${matched.subarray(0, 8).toString('hex')}`;
  }
}

function digest(key: string): Buffer {
  return createHash('sha256').update(key, 'utf8').digest();
}
