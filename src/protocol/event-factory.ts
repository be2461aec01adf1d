import type { RunEvent, RunEventInput } from './run-events.js';

/**
 * Builds the events of one run: the only place `seq`, `run_id` and `timestamp` are filled, so no
 * producer can forget one or number two events alike. `seq` starts at 0 and has no gaps.
 */
export class RunEventFactory {
  #nextSeq = 0;

  constructor(
    readonly runId: string,
    private readonly now: () => number = Date.now,
  ) {}

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
    const { event, ...fields } = input;
    // Envelope first so every serialised event reads `event, seq, run_id, timestamp, …`.
    return {
      event,
      seq: this.#nextSeq++,
      run_id: this.runId,
      timestamp: Math.round(this.now()) / 1000,
      ...fields,
    } as RunEvent;
  }
}
