/** What a label reads once its set is full. */
export const OTHER_LABEL = 'other';

/**
 * A label value from a set that could grow without end (environments, model names): the first
 * `max` values seen keep their name, any later one reads `other`, so a metric's series stay bounded.
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
