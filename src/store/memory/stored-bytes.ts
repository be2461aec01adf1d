import type { ByteAccount } from '../../runs/event-log.js';

/**
 * What the memory store's runs hold, in characters of JSON (`RUNBRIDGE_MAX_STORED_BYTES`): in all and
 * per API key, kept as runs are added, grow and are forgotten. A submit reads two numbers rather than
 * summing every retained run, which with a long retention was thousands of runs walked per request.
 */
export class StoredBytes {
  #total = 0;
  readonly #byOwner = new Map<string, number>();

  /** Bytes held in all, or by `owner`'s runs alone when given. */
  held(owner?: string): number {
    return owner === undefined ? this.#total : (this.#byOwner.get(owner) ?? 0);
  }

  /** Counts `bytes` more (fewer when negative) for `owner`. */
  add(owner: string, bytes: number): void {
    this.#total += bytes;
    const mine = (this.#byOwner.get(owner) ?? 0) + bytes;
    if (mine === 0) this.#byOwner.delete(owner);
    else this.#byOwner.set(owner, mine);
  }

  /** The account one run of `owner` grows through. */
  accountOf(owner: string): ByteAccount {
    return { add: (bytes) => this.add(owner, bytes) };
  }
}
