import { nanoid } from 'nanoid';
import type { ModelPart } from '../../../src/models/model.js';
import { heldTagLength } from './parsers/held-tag.js';
import type { ReasoningParser, TextSection } from './parsers/reasoning-parser.js';
import { REASONING_PARSERS, type ReasoningParserName } from './parsers/reasoning-parsers.js';
import type { ToolParser } from './parsers/tool-parser.js';
import { TOOL_PARSERS, type ToolParserName } from './parsers/tool-parsers.js';
import { TrimmedText } from './parsers/trimmed-text.js';

/**
 * The text of end-of-turn and end-of-text tokens, which a server sends when asked not to skip special
 * tokens: never part of the answer. The completion's ids keep the token itself.
 */
const END_MARKERS = ['<|im_end|>', '<|endoftext|>', '<|eot_id|>', '<|end_of_text|>', '<｜end▁of▁sentence｜>'];

/** How {@link CompletionTextParser} reads a completion. */
export interface CompletionTextParserOptions {
  reasoning: ReasoningParserName;
  tool: ToolParserName;
  /** The generation prompt left a reasoning block open (see `ReasoningParserOptions`). */
  promptOpensReasoning: boolean;
  /** Ids for the calls found; `call_` and a random id when absent. */
  newCallId?: () => string;
}

/**
 * Reads a completion's text as it streams into the model parts the episode publishes: the text stops
 * at an end-of-turn marker, the reasoning parser splits off reasoning (`reasoning-delta`s, then the
 * whole block once the answer begins or the completion ends), and the tool parser finds the calls in
 * the answer (`tool-call-delta`s, then each `tool-call`); what is left is the answer (`text-delta`s),
 * without the whitespace around it.
 */
export class CompletionTextParser {
  readonly #reasoning: ReasoningParser;
  readonly #tools: ToolParser;
  readonly #reasoningText = new TrimmedText();
  readonly #answer = new TrimmedText();
  /** The reasoning of the block still open, to deliver whole when it closes. */
  #block = '';
  /** Text that may be the start of an end marker. */
  #held = '';
  #ended = false;

  constructor(options: CompletionTextParserOptions) {
    this.#reasoning = REASONING_PARSERS[options.reasoning]({ promptOpensReasoning: options.promptOpensReasoning });
    this.#tools = TOOL_PARSERS[options.tool]({ newCallId: options.newCallId ?? (() => `call_${nanoid()}`) });
  }

  /** The parts one delta of completion text makes. */
  push(delta: string): ModelPart[] {
    const text = this.#beforeEnd(delta);
    return text === '' ? [] : this.#parts(this.#reasoning.push(text), []);
  }

  /** The parts held back, once the completion is over: the rest of the text, an open call, an open reasoning block. */
  end(): ModelPart[] {
    const held = this.#ended ? '' : this.#held;
    this.#held = '';
    const parts = this.#parts([...this.#reasoning.push(held), ...this.#reasoning.end()], []);
    this.#answerParts(this.#tools.end(), parts);
    this.#closeBlock(parts);
    return parts;
  }

  /** What of `delta` comes before an end marker; nothing once one has come. */
  #beforeEnd(delta: string): string {
    if (this.#ended) return '';
    const text = this.#held + delta;
    let cut = -1;
    for (const marker of END_MARKERS) {
      const at = text.indexOf(marker);
      if (at >= 0 && (cut < 0 || at < cut)) cut = at;
    }
    if (cut >= 0) {
      this.#ended = true;
      this.#held = '';
      return text.slice(0, cut);
    }
    let held = 0;
    for (const marker of END_MARKERS) held = Math.max(held, heldTagLength(text, marker));
    this.#held = text.slice(text.length - held);
    return text.slice(0, text.length - held);
  }

  #parts(sections: readonly TextSection[], parts: ModelPart[]): ModelPart[] {
    for (const section of sections) {
      if (section.kind === 'reasoning') {
        const delta = this.#reasoningText.push(section.text);
        if (delta === '') continue;
        this.#block += delta;
        parts.push({ type: 'reasoning-delta', delta });
      } else {
        this.#closeBlock(parts);
        this.#answerParts(this.#tools.push(section.text), parts);
      }
    }
    return parts;
  }

  #answerParts(outputs: ReturnType<ToolParser['push']>, parts: ModelPart[]): void {
    for (const output of outputs) {
      if (output.type !== 'text') {
        this.#answer.drop();
        parts.push(output);
        continue;
      }
      const delta = this.#answer.push(output.text);
      if (delta !== '') parts.push({ type: 'text-delta', delta });
    }
  }

  #closeBlock(parts: ModelPart[]): void {
    if (this.#block === '') return;
    parts.push({ type: 'reasoning', block: { text: this.#block } });
    this.#block = '';
  }
}
