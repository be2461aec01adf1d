/** What a label reads once its set is full, or for a value that is not the operator's to name. */
export const OTHER_LABEL = 'other';

/**
 * A label value from a set the operator controls but that may still be large (the ORS server's
 * environments): the first `max` values seen keep their name, any later one reads `other`, so a
 * metric's series stay bounded. Never for values a caller chooses: the first to come would take the slots.
 */
export class BoundedLabel {
  readonly #seen = new Set<string>();

  constructor(readonly max: number) {}

  of(value: string): string {
    if (this.#seen.has(value)) return value;
    if (this.#seen.size >= this.max) return OTHER_LABEL;
    this.#seen.add(value);
    return value;
  }
}
