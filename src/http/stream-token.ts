import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';

/** A token as a stream-token route hands it out (`POST /v1/runs/:id/stream-token`, …). */
export interface IssuedStreamToken {
  /** Opaque; pass it as `?token=` on the URL of the stream it was issued for. */
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
  /** The tokens' secret; default 32 random bytes, so tokens die with the process that issued them. */
  secret?: Buffer;
}

/** Tokens are `<version>.<expiry seconds>.<nonce ‖ sealed owner ‖ tag, base64url>`. */
const VERSION = 'st2';
const SHAPE = /^st2\.([1-9]\d{0,11})\.([A-Za-z0-9_-]{40,400})$/;
const NONCE_BYTES = 12;
const TAG_BYTES = 16;

/**
 * Short-lived stream tokens for clients that cannot send headers (a browser EventSource), each for one
 * stream: the path of one run's events or one batch's records. Stateless: the owner is sealed with
 * AES-256-GCM under a key derived from a per-process secret, with the stream's path and expiry as
 * authenticated data. So a token names its owner to this server only — it shows nothing about the API
 * key behind the owner, which a hash of the key would let anyone test guesses against offline — and it
 * is useless on any other stream or route, after its expiry, or once a single character changes.
 * Nothing is stored, nothing needs cleaning up.
 */
export class StreamTokens {
  readonly #ttlMs: number;
  readonly #now: () => number;
  readonly #key: Buffer;

  /** Tokens of one process; with no `secret` given, a fresh random one. */
  constructor(options: StreamTokensOptions) {
    this.#ttlMs = options.ttlMs;
    this.#now = options.now ?? Date.now;
    // A key of its own for this one use, whatever else the secret may serve.
    const secret = options.secret ?? randomBytes(32);
    this.#key = Buffer.from(hkdfSync('sha256', secret, Buffer.alloc(0), 'runbridge stream token st2', 32));
  }

  /** A token that lets `owner` open the stream at `stream` (a path, e.g. `/v1/runs/run_…/events`) for the next `ttlMs`. */
  issue(stream: string, owner: string): IssuedStreamToken {
    // Whole seconds, rounded up: the token lives at least ttlMs and its text stays short.
    const expiresSeconds = Math.ceil((this.#now() + this.#ttlMs) / 1000);
    const nonce = randomBytes(NONCE_BYTES);
    const cipher = createCipheriv('aes-256-gcm', this.#key, nonce, { authTagLength: TAG_BYTES });
    cipher.setAAD(boundData(stream, expiresSeconds));
    const sealed = Buffer.concat([nonce, cipher.update(owner, 'utf8'), cipher.final(), cipher.getAuthTag()]);
    return { token: `${VERSION}.${expiresSeconds}.${sealed.toString('base64url')}`, expiresAt: expiresSeconds * 1000 };
  }

  /**
   * The owner `token` was issued to, when it is well-formed, unexpired and was issued for `stream`
   * by this process; otherwise undefined (the caller answers 401 without saying which check failed).
   */
  verify(token: string, stream: string): string | undefined {
    const match = SHAPE.exec(token);
    if (!match) return undefined;
    const expiresSeconds = Number(match[1]);
    const sealed = Buffer.from(match[2]!, 'base64url');
    // base64 decoding forgives stray bits: a token must have exactly one spelling.
    if (sealed.toString('base64url') !== match[2] || sealed.length <= NONCE_BYTES + TAG_BYTES) return undefined;
    if (expiresSeconds * 1000 <= this.#now()) return undefined;
    const decipher = createDecipheriv('aes-256-gcm', this.#key, sealed.subarray(0, NONCE_BYTES), {
      authTagLength: TAG_BYTES,
    });
    decipher.setAAD(boundData(stream, expiresSeconds));
    decipher.setAuthTag(sealed.subarray(sealed.length - TAG_BYTES));
    try {
      const owner = decipher.update(sealed.subarray(NONCE_BYTES, sealed.length - TAG_BYTES));
      return Buffer.concat([owner, decipher.final()]).toString('utf8');
    } catch {
      // The tag does not match: another stream, another expiry, another process, or a forgery.
      return undefined;
    }
  }
}

/** What a token is bound to besides its owner; NUL-separated, as no path contains one (it is percent-encoded). */
function boundData(stream: string, expiresSeconds: number): Buffer {
  return Buffer.from(`${VERSION}\0${stream}\0${expiresSeconds}`, 'utf8');
}
