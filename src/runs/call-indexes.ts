/**
 * Hands out the run-wide `call_index` of each tool call (its position among the run's calls, and its
 * OpenAI `tool_calls[].index`). A call whose arguments stream gets its index when it is announced, so
 * its `tool.arguments.delta`s, `tool.started`, `tool.progress` and `tool.completed` all carry the same
 * one; a call that arrives whole gets the next index when it starts. Models announce calls in the
 * order they make them, so indexes still follow the order the calls run in.
 */
export class CallIndexes {
  #next = 0;
  /** Indexes of the calls announced in the current model turn that have not started yet, by call id. */
  readonly #announced = new Map<string, number>();

  /** Forgets the announcements of the previous turn: a call id names a call only within its turn. */
  beginTurn(): void {
    this.#announced.clear();
  }

  /** The index of call `id` as its arguments stream, and whether this is the call's first piece. */
  announce(id: string): { index: number; first: boolean } {
    const known = this.#announced.get(id);
    if (known !== undefined) return { index: known, first: false };
    const index = this.#next++;
    this.#announced.set(id, index);
    return { index, first: true };
  }

  /** The index of call `id` as it starts: the one it was announced with, or the next one. */
  start(id: string): number {
    const announced = this.#announced.get(id);
    if (announced === undefined) return this.#next++;
    // Taken once: a second call under the same id (a server that reuses ids) gets its own index.
    this.#announced.delete(id);
    return announced;
  }
}
