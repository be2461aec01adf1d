/** The listeners of one kind of news a store tells this instance: added by whoever subscribes, told in turn. */
export class Listeners<News extends unknown[]> {
  readonly #listeners = new Set<(...news: News) => void>();

  /** Adds `listener`; the returned function removes it. */
  add(listener: (...news: News) => void): () => void {
    this.#listeners.add(listener);
    return () => {
      this.#listeners.delete(listener);
    };
  }

  /** Tells every listener. */
  tell(...news: News): void {
    for (const listener of [...this.#listeners]) listener(...news);
  }
}
