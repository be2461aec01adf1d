/**
 * How much of one answer the transport reads before it stops (the model SDKs' `fetch`,
 * {@link nodeHttpFetch}). What a server sends is counted as it arrives, before any SDK sees it, so a
 * server cannot make the bridge hold, or rescan, more than these.
 */
export interface BodyCaps {
  /**
   * Bytes of one server-sent event: its lines up to the blank line that ends it — so also of one line.
   * The SDKs keep an unfinished event whole, and look through all of it again with every chunk.
   */
  maxEventBytes: number;
  /** Bytes of one whole answer. */
  maxAnswerBytes: number;
  /** Bytes of an error answer's body (status 400 and up) read for its message; the rest is left unread. */
  maxErrorBytes: number;
}

/**
 * An answer passed one of its {@link BodyCaps}: the transport stopped reading it and closed the
 * connection. Whoever maps the SDK's errors names the setting behind `limit`.
 */
export class BodyCapError extends Error {
  constructor(
    /** Which cap: an event (or line) that did not end, or the whole answer. */
    readonly cap: 'event' | 'answer',
    /** The cap, in bytes. */
    readonly limit: number,
  ) {
    super(
      cap === 'event'
        ? `the server sent an event (or a line) of more than ${limit} bytes`
        : `the server's answer passed ${limit} bytes`,
    );
    this.name = 'BodyCapError';
  }
}
