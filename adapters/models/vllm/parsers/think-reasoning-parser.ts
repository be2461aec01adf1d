import { cutAtTag } from './held-tag.js';
import type { ReasoningParser, TextSection } from './reasoning-parser.js';

const OPEN = '<think>';
const CLOSE = '</think>';

/**
 * Reads a `<think>…</think>` block at the start of a completion as reasoning (Qwen3, DeepSeek-R1,
 * QwQ and their fine-tunes): the opening tag may come after whitespace; what follows `</think>` is
 * the answer. A completion that does not open the block starts in reasoning when `startsInReasoning`
 * (the generation prompt opened it, or the model's template always does) and in the answer otherwise.
 * Tags split across deltas are held back until they are whole.
 */
export class ThinkReasoningParser implements ReasoningParser {
  readonly #fallback: 'reasoning' | 'content';
  #state: 'opening' | 'reasoning' | 'content' = 'opening';
  #buffer = '';

  constructor(options: { startsInReasoning: boolean }) {
    this.#fallback = options.startsInReasoning ? 'reasoning' : 'content';
  }

  push(delta: string): TextSection[] {
    this.#buffer += delta;
    const sections: TextSection[] = [];
    for (;;) {
      if (this.#state === 'opening') {
        const trimmed = this.#buffer.trimStart();
        if (trimmed.startsWith(OPEN)) {
          this.#state = 'reasoning';
          this.#buffer = trimmed.slice(OPEN.length);
          continue;
        }
        // Nothing but whitespace yet, or the beginning of the tag: wait for more.
        if (OPEN.startsWith(trimmed)) return sections;
        this.#state = this.#fallback;
        continue;
      }
      if (this.#state === 'reasoning') {
        const cut = cutAtTag(this.#buffer, CLOSE);
        if (cut.before !== '') sections.push({ kind: 'reasoning', text: cut.before });
        this.#buffer = cut.rest;
        if (!cut.found) return sections;
        this.#state = 'content';
        continue;
      }
      if (this.#buffer !== '') sections.push({ kind: 'content', text: this.#buffer });
      this.#buffer = '';
      return sections;
    }
  }

  end(): TextSection[] {
    const rest = this.#buffer;
    this.#buffer = '';
    if (rest === '') return [];
    return [{ kind: this.#state === 'opening' ? this.#fallback : this.#state, text: rest }];
  }
}
