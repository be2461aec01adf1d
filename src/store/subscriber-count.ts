/**
 * The subscribers of one run on this instance: a run watched is no orphan, and shutdown waits for them
 * to read their terminal event. One counter follows the run from executing here to being kept as a
 * copy, so a subscriber counted in while it ran is counted out of the same count.
 */
export class SubscriberCount {
  #count = 0;

  get count(): number {
    return this.#count;
  }

  /** Counts one subscriber in; the returned function counts it out, once. */
  add(): () => void {
    this.#count++;
    let counted = true;
    return () => {
      if (!counted) return;
      counted = false;
      this.#count--;
    };
  }
}
