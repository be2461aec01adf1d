import { randomInt } from 'node:crypto';
import { setTimeout as delay } from 'node:timers/promises';
import type { Model, ModelPart, ModelRequest } from '../../../src/models/model.js';
import { decideNextTurn } from './offline-policy.js';
import { countPromptTokens, countTokens, splitTokens } from './token-split.js';

/**
 * The offline demo and test model: decides each turn with the deterministic offline policy and
 * streams it like a real provider would — reasoning deltas and a reasoning block, text token by
 * token, then each tool call announced, its arguments token by token and the call whole, then
 * `usage` and `finish`.
 *
 * Sampling: only `temperature` and `seed` matter (see `sampling-noise.ts`). With a temperature above
 * 0 and no seed, each call draws a random seed, as vendor APIs sample differently on every call;
 * `top_p`, `max_tokens` and `extra_body` are ignored.
 */
export class OfflineModel implements Model {
  readonly id = 'offline';
  readonly #tokenDelayMs: number;

  /** `tokenDelayMs` is the pause before each streamed token (0: no pauses, for tests and benchmarks). */
  constructor(options: { tokenDelayMs: number }) {
    this.#tokenDelayMs = options.tokenDelayMs;
  }

  /**
   * Streams one turn. An abort of `request.signal` — before or during the stream — rejects with the
   * signal's reason at once and leaves no timer behind.
   */
  async *stream(request: ModelRequest): AsyncGenerator<ModelPart> {
    const { signal } = request;
    signal.throwIfAborted();
    const temperature = request.sampling.temperature ?? 0;
    const seed = request.sampling.seed ?? (temperature > 0 ? randomInt(0x7fff_ffff) : 0);
    const decision = decideNextTurn({ messages: request.messages, tools: request.tools, temperature, seed });

    for (const delta of splitTokens(decision.reasoning)) {
      await this.#pause(1, signal);
      yield { type: 'reasoning-delta', delta };
    }
    if (decision.reasoning !== '') {
      signal.throwIfAborted();
      yield { type: 'reasoning', block: { text: decision.reasoning } };
    }
    for (const delta of splitTokens(decision.text)) {
      await this.#pause(1, signal);
      yield { type: 'text-delta', delta };
    }
    let outputTokens = countTokens(decision.reasoning) + countTokens(decision.text);
    for (const call of decision.toolCalls) {
      // Announced once its name is "generated", then its arguments token by token, as vendors stream them.
      outputTokens += countTokens(call.name) + countTokens(call.arguments);
      await this.#pause(countTokens(call.name), signal);
      yield { type: 'tool-call-delta', id: call.id, name: call.name, delta: '' };
      for (const delta of splitTokens(call.arguments)) {
        await this.#pause(1, signal);
        yield { type: 'tool-call-delta', id: call.id, name: call.name, delta };
      }
      signal.throwIfAborted();
      yield { type: 'tool-call', call };
    }
    signal.throwIfAborted();
    yield { type: 'usage', usage: { inputTokens: countPromptTokens(request.messages, request.tools), outputTokens } };
    yield { type: 'finish', reason: decision.toolCalls.length > 0 ? 'tool_calls' : 'stop' };
  }

  /** Waits `tokens` token delays; rejects with the abort reason if `signal` aborts first. */
  async #pause(tokens: number, signal: AbortSignal): Promise<void> {
    signal.throwIfAborted();
    if (this.#tokenDelayMs <= 0) return;
    try {
      await delay(this.#tokenDelayMs * tokens, undefined, { signal });
    } catch (error) {
      // timers/promises rejects with its own AbortError; the `Model` contract wants the signal's reason.
      throw signal.aborted ? signal.reason : error;
    }
  }
}
