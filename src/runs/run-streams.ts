import type { ControlMessage, ControlOutcome } from './control-message.js';
import type { EventLog } from './event-log.js';
import type { RunRecord } from './run-record.js';
import type { OpenedRun } from './run-store.js';

/**
 * Where runs live (docs/protocol.md §8), the live side: the log of each run as the instance executing it
 * writes it (`publish`) and as anyone follows it (`join`), and the messages that steer a run on their way
 * to that instance (`send`). The record side — records, keys, the queue — is `RunStore`; a store gives
 * both (test/store/run-streams-contract.ts holds both stores to this one). Nothing here calls into the
 * executor: a published run brings its own inbox for control messages, and what the streams do on this
 * instance's behalf is told to whoever subscribes.
 */

/** A run this instance executes, as it publishes it. */
export interface PublishedRun {
  record: RunRecord;
  /** The log its episode writes: the one `RunStore.submit`, `claim` or `unqueue` handed out. */
  log: EventLog;
  /**
   * Takes a control message for the run (a cancel, a decision, a person's message), from whichever
   * instance it was sent: `sent`, `full` for a person's message past the bound, or `gone` once the run no
   * longer takes any.
   */
  control(message: ControlMessage): ControlOutcome;
}

/**
 * A run this instance ended in the store for an executor that no longer ran it (its instance was lost, or
 * this one held it without executing it): its record, its whole log, and the seq of its first closing
 * event. Its end is this instance's to tell — its webhooks, its end listener, its end line and count.
 */
export interface EndedRun {
  record: RunRecord;
  log: EventLog;
  from: number;
}

export interface RunStreams {
  /**
   * Keeps the log of a run this instance executes as the episode writes it, and hands it the control
   * messages sent to it; resolves once its terminal event is stored and its slot freed — true when the
   * store holds the log as it was written here, false when it ended otherwise there (another instance
   * ended the run as lost: stop it, that end is the one kept) or the store closed first.
   */
  publish(run: PublishedRun): Promise<boolean>;
  /** The run `id` with its log, following what is written to it, to stream or page (undefined when unknown). */
  join(id: string): Promise<OpenedRun | undefined>;
  /**
   * Counts a subscriber of run `id` on this instance in (a run watched is no orphan) and touches it; the
   * returned function counts it out and touches it again.
   */
  watch(id: string): () => void;
  /** Open event streams and waiting requests on this instance (shutdown waits for them). */
  subscribers(): number;
  /**
   * Sends `message` to the instance executing run `id` (this one or another). A person's message is
   * counted where the run executes, so every instance refuses the one past the bound alike (`full`);
   * the count falls as the run takes them (`message.received`). A cancel of a run its holder no longer
   * executes ends it at once (told through {@link onEnded}).
   */
  send(id: string, message: ControlMessage): Promise<ControlOutcome>;
  /**
   * Calls `listener` with each run this instance ended for an executor that no longer ran it (see
   * {@link EndedRun}); a store of one process alone has no such runs. Returns the function that stops it.
   */
  onEnded(listener: (run: EndedRun) => void): () => void;
}
