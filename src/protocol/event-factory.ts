import type { RunEvent, RunEventInput } from './run-events.js';

/**
 * Builds the events of one run: the only place `seq`, `run_id` and `timestamp` are filled, so no
 * producer can forget one or number two events alike. `seq` starts at 0 and has no gaps.
 *
 * The deltas a model streams (`message.delta`, `reasoning.delta`, `tool.arguments.delta`) come one
 * per token or so, and making each shows in the fan-out benchmark (`bench/`, benchmark 1): they are
 * built field by field in their schema's order and written to JSON by {@link json} without
 * `JSON.stringify` walking the whole object; every other event is built and written generically.
 */
export class RunEventFactory {
  #nextSeq = 0;
  readonly #runIdJson: string;
  /** The newest timestamp as epoch ms, as events carry it and as JSON writes it: a burst of events shares one. */
  #stampMs = Number.NaN;
  #stamp = Number.NaN;
  #stampJson = '';

  constructor(
    readonly runId: string,
    private readonly now: () => number = Date.now,
  ) {
    this.#runIdJson = JSON.stringify(runId);
  }

  /** The `seq` the next event will get (equals the number of events built so far). */
  get nextSeq(): number {
    return this.#nextSeq;
  }

  /** Goes on numbering from `seq` (a log read back from a store continues where it ends). */
  continueAt(seq: number): void {
    this.#nextSeq = seq;
  }

  /** Completes `input` with the envelope and advances the sequence. */
  build(input: RunEventInput): RunEvent {
    const seq = this.#nextSeq++;
    const timestamp = this.#timestamp();
    const run_id = this.runId;
    // Envelope first so every serialised event reads `event, seq, run_id, timestamp, …`.
    switch (input.event) {
      case 'message.delta':
        return { event: input.event, seq, run_id, timestamp, delta: input.delta, turn: input.turn };
      case 'reasoning.delta':
        return { event: input.event, seq, run_id, timestamp, delta: input.delta, turn: input.turn };
      case 'tool.arguments.delta': {
        const { tool, tool_call_id, delta, turn, call_index } = input;
        return { event: input.event, seq, run_id, timestamp, tool, tool_call_id, delta, turn, call_index };
      }
      default: {
        const { event, ...fields } = input;
        return { event, seq, run_id, timestamp, ...fields } as RunEvent;
      }
    }
  }

  /** `event`'s JSON, exactly as `JSON.stringify(event)` writes it; cheaper for the streamed deltas this factory built. */
  json(event: RunEvent): string {
    if (event.run_id !== this.runId) return JSON.stringify(event);
    switch (event.event) {
      // Each field in the order `build` gave the object; the type and the whole numbers need no escaping.
      case 'message.delta':
      case 'reasoning.delta':
        return `${this.#head(event)},"delta":${JSON.stringify(event.delta)},"turn":${event.turn}}`;
      case 'tool.arguments.delta':
        return (
          `${this.#head(event)},"tool":${JSON.stringify(event.tool)},"tool_call_id":${JSON.stringify(event.tool_call_id)}` +
          `,"delta":${JSON.stringify(event.delta)},"turn":${event.turn},"call_index":${event.call_index}}`
        );
      default:
        return JSON.stringify(event);
    }
  }

  /** The envelope's JSON, without the closing brace. */
  #head(event: RunEvent): string {
    const stamp = event.timestamp === this.#stamp ? this.#stampJson : JSON.stringify(event.timestamp);
    return `{"event":"${event.event}","seq":${event.seq},"run_id":${this.#runIdJson},"timestamp":${stamp}`;
  }

  /** Epoch seconds with millisecond precision; the number and its JSON are made once per millisecond. */
  #timestamp(): number {
    const ms = Math.round(this.now());
    if (ms !== this.#stampMs) {
      this.#stampMs = ms;
      this.#stamp = ms / 1000;
      this.#stampJson = JSON.stringify(this.#stamp);
    }
    return this.#stamp;
  }
}
