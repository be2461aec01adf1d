import { CapacityError } from '../errors.js';
import type { ConnectionLimits } from './connection-limits.js';

/** What a refused stream is told to wait: streams end with their runs, and nothing tells when. */
const RETRY_AFTER_SECONDS = 5;

/**
 * Counts open event streams, in total and per owner, and refuses one past either cap with a 429
 * (`too_many_streams`, `Retry-After`): a client that opens thousands of idle streams gets answers,
 * not the server's file descriptors.
 */
export class StreamSlots {
  readonly #limits: Pick<ConnectionLimits, 'maxStreams' | 'maxStreamsPerKey'>;
  readonly #byOwner = new Map<string, number>();
  #open = 0;

  constructor(limits: Pick<ConnectionLimits, 'maxStreams' | 'maxStreamsPerKey'>) {
    this.#limits = limits;
  }

  /** Streams open now. */
  get open(): number {
    return this.#open;
  }

  /** Takes a slot for a stream of `owner`, or throws the 429; the returned function gives it back (once). */
  acquire(owner: string): () => void {
    const mine = this.#byOwner.get(owner) ?? 0;
    if (mine >= this.#limits.maxStreamsPerKey) {
      throw new CapacityError(
        `This key has ${mine} event streams open, the most one key may (RUNBRIDGE_MAX_STREAMS_PER_KEY); ` +
          'close one, or resume later with Last-Event-ID or ?after=.',
        RETRY_AFTER_SECONDS,
        'too_many_streams',
      );
    }
    if (this.#open >= this.#limits.maxStreams) {
      throw new CapacityError(
        `The server has ${this.#open} event streams open, the most it holds (RUNBRIDGE_MAX_STREAMS); retry later.`,
        RETRY_AFTER_SECONDS,
        'too_many_streams',
      );
    }
    this.#byOwner.set(owner, mine + 1);
    this.#open++;
    let held = true;
    return () => {
      if (!held) return;
      held = false;
      this.#open--;
      const left = (this.#byOwner.get(owner) ?? 1) - 1;
      if (left === 0) this.#byOwner.delete(owner);
      else this.#byOwner.set(owner, left);
    };
  }
}
