/**
 * A stream of text with the whitespace at its start and end left out, and whitespace inside it kept:
 * a run of whitespace is held back until text follows it. The blank lines a model writes after
 * `</think>` and around its tool calls are the template's layout, not part of its answer.
 */
export class TrimmedText {
  #started = false;
  #pending = '';

  /** What of `text` can be published now. */
  push(text: string): string {
    let joined = this.#pending + text;
    if (!this.#started) joined = joined.trimStart();
    const body = joined.trimEnd();
    this.#pending = joined.slice(body.length);
    if (body !== '') this.#started = true;
    return body;
  }

  /** Forgets whitespace held back: something other than text (a tool call) came after it. */
  drop(): void {
    this.#pending = '';
  }
}
