import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

/** A token as `POST /v1/runs/:id/stream-token` hands it out. */
export interface IssuedStreamToken {
  /** Opaque; pass it as `?token=` on the run's events URL. */
  token: string;
  /** Epoch milliseconds after which the token no longer opens a stream. */
  expiresAt: number;
}

/** Settings of {@link StreamTokens}. */
export interface StreamTokensOptions {
  /** How long a token opens streams after it is issued. */
  ttlMs: number;
  /** The clock, in epoch milliseconds; default `Date.now`. */
  now?: () => number;
  /** HMAC key; default 32 random bytes, so tokens die with the process that issued them. */
  secret?: Buffer;
}

/** Tokens are `<version>.<expiry seconds>.<owner, base64url>.<mac, base64url>`. */
const VERSION = 'st1';
const SHAPE = /^st1\.(\d{1,12})\.([A-Za-z0-9_-]{1,200})\.([A-Za-z0-9_-]{43})$/;

/**
 * Short-lived, single-run stream tokens for clients that cannot send headers (a browser
 * EventSource). Stateless: a token is its run id, owner and expiry signed with HMAC-SHA-256 under
 * a per-process secret, so nothing is stored and nothing needs cleaning up; verification compares
 * MACs in constant time. A token only says "this owner may read this run's events until then" —
 * the run id is bound by the MAC, not carried in the token, so it is useless on any other run or route.
 */
export class StreamTokens {
  readonly #ttlMs: number;
  readonly #now: () => number;
  readonly #secret: Buffer;

  /** Tokens of one process; with no `secret` given, a fresh random one. */
  constructor(options: StreamTokensOptions) {
    this.#ttlMs = options.ttlMs;
    this.#now = options.now ?? Date.now;
    this.#secret = options.secret ?? randomBytes(32);
  }

  /** A token that lets `owner` open the events stream of `runId` for the next `ttlMs`. */
  issue(runId: string, owner: string): IssuedStreamToken {
    // Whole seconds, rounded up: the token lives at least ttlMs and its text stays short.
    const expiresSeconds = Math.ceil((this.#now() + this.#ttlMs) / 1000);
    return { token: this.#format(runId, owner, expiresSeconds), expiresAt: expiresSeconds * 1000 };
  }

  /**
   * The owner `token` was issued to, when it is well-formed, unexpired and was issued for `runId`
   * by this process; otherwise undefined (the caller answers 401 without saying which check failed).
   */
  verify(token: string, runId: string): string | undefined {
    const match = SHAPE.exec(token);
    if (!match) return undefined;
    const expiresSeconds = Number(match[1]);
    const owner = Buffer.from(match[2]!, 'base64url').toString('utf8');
    // The whole token is rebuilt and compared, not just the MAC: base64 decoding forgives stray
    // bits and leading zeros, and a token must have exactly one spelling.
    const expected = Buffer.from(this.#format(runId, owner, expiresSeconds), 'utf8');
    const presented = Buffer.from(token, 'utf8');
    const valid = presented.length === expected.length && timingSafeEqual(presented, expected);
    return valid && expiresSeconds * 1000 > this.#now() ? owner : undefined;
  }

  #format(runId: string, owner: string, expiresSeconds: number): string {
    const ownerPart = Buffer.from(owner, 'utf8').toString('base64url');
    return `${VERSION}.${expiresSeconds}.${ownerPart}.${this.#mac(runId, owner, expiresSeconds).toString('base64url')}`;
  }

  #mac(runId: string, owner: string, expiresSeconds: number): Buffer {
    // NUL-separated: no run id or owner contains one, so no two triples sign the same text.
    return createHmac('sha256', this.#secret).update(`${VERSION}\0${runId}\0${owner}\0${expiresSeconds}`).digest();
  }
}
