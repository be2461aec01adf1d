import { ModelError } from '../errors.js';

/**
 * Counts what one model turn streams — text, reasoning, tool arguments and token data (ids and
 * logprobs, as the characters of the JSON the run keeps of them), together — and throws
 * `model_output_too_large` once it passes the limit (docs/protocol.md §1.5), before the part that
 * passed it is published or kept. The episode stops reading there, which closes the model's stream. What is
 * given twice counts once: reasoning streamed and then delivered as whole blocks counts as the larger
 * of the two, a call's arguments as the larger of its pieces and its whole text.
 */
export class TurnOutputMeter {
  readonly #limit: number;
  readonly #turn: number;
  #text = 0;
  #reasoningStreamed = 0;
  #reasoningBlocks = 0;
  /** Characters counted per call id; their sum is {@link #arguments}. */
  readonly #calls = new Map<string, number>();
  #arguments = 0;
  #tokenData = 0;

  constructor(limit: number, turn: number) {
    this.#limit = limit;
    this.#turn = turn;
  }

  /** A piece of the turn's text. */
  text(chars: number): void {
    this.#text += chars;
    this.#check();
  }

  /** A piece of reasoning as it streams. */
  reasoningDelta(chars: number): void {
    this.#reasoningStreamed += chars;
    this.#check();
  }

  /** A whole reasoning block. */
  reasoningBlock(chars: number): void {
    this.#reasoningBlocks += chars;
    this.#check();
  }

  /** A piece of the turn's token data, `chars` long as JSON. */
  tokenData(chars: number): void {
    this.#tokenData += chars;
    this.#check();
  }

  /** A piece of call `id`'s arguments as they stream. */
  argumentsDelta(id: string, chars: number): void {
    this.#setCall(id, (this.#calls.get(id) ?? 0) + chars);
  }

  /** Call `id` whole, its arguments `chars` long. */
  call(id: string, chars: number): void {
    this.#setCall(id, Math.max(this.#calls.get(id) ?? 0, chars));
  }

  #setCall(id: string, chars: number): void {
    this.#arguments += chars - (this.#calls.get(id) ?? 0);
    this.#calls.set(id, chars);
    this.#check();
  }

  #check(): void {
    const total =
      this.#text + Math.max(this.#reasoningStreamed, this.#reasoningBlocks) + this.#arguments + this.#tokenData;
    if (total <= this.#limit) return;
    throw new ModelError(
      `Turn ${this.#turn} of the model passed ${this.#limit} characters of text, reasoning, tool arguments and token data ` +
        '(RUNBRIDGE_MAX_TURN_OUTPUT_CHARS), so the bridge stopped reading it. Bound the model’s output ' +
        '(sampling.max_tokens) or raise the setting.',
      { code: 'model_output_too_large', details: { turn: this.#turn, limit: this.#limit } },
    );
  }
}
