/** How one webhook delivery attempt came out. */
export type DeliveryOutcome = 'delivered' | 'retry' | 'failed';

/** Where a failed model call came from, and how long it took. */
export interface ModelCallSample {
  /** The provider (`openai`, `anthropic`, …). */
  provider: string;
  /** The model's name after `provider:` (or the provider, for one without names). */
  model: string;
  /** The run's model as `provider:name` (or the provider alone), which decides whether its name is a label (docs/security.md). */
  ref: string;
  seconds: number;
  inputTokens: number;
  outputTokens: number;
  /** The error code when the call failed. */
  errorType: string | undefined;
}

/**
 * The bridge's counters, gauges and histograms (docs/operations.md#metrics), one method per thing
 * that happened, so no caller touches prom-client. Labels stay within bounded sets; with
 * `RUNBRIDGE_METRICS=0` every method does nothing.
 */
export interface BridgeMetrics {
  /** A run started executing here. */
  runStarted(env: string): void;
  /** A run's end, counted once, by the instance whose end the store holds (which may not have executed it). */
  runFinished(env: string, status: string): void;
  /** A run stopped executing here, ended or not. */
  runStopped(): void;
  /** One turn: its model call and the tool calls it asked for. */
  turn(seconds: number): void;
  modelCall(sample: ModelCallSample): void;
  toolCall(env: string, seconds: number): void;
  /** A failure of the ORS server, by `ors_…` code. */
  orsError(code: string): void;
  approvalsPending(delta: number): void;
  /** An event stream opened in `format`; call what it returns when it closes. */
  streamOpened(format: string): () => void;
  webhookDelivery(outcome: DeliveryOutcome): void;
  /**
   * One call of the A2A endpoint: its method (one of the protocol's, else `other`), the protocol version
   * it was made in, and its outcome (`ok`, or the A2A reason of its error, e.g. `TASK_NOT_FOUND`).
   */
  a2aCall(method: string, version: string, outcome: string): void;
  /** A rollout batch's pair recorded by this instance (once per pair across instances), by its record's status. */
  rolloutRecord(status: 'completed' | 'failed'): void;
  /** How to count the queued runs (the store's count, shared by every instance) when scraped. */
  countQueued(read: () => Promise<number>): void;
}

const nothing = () => undefined;

/** Metrics off. */
export const noMetrics: BridgeMetrics = {
  runStarted: nothing,
  runFinished: nothing,
  runStopped: nothing,
  turn: nothing,
  modelCall: nothing,
  toolCall: nothing,
  orsError: nothing,
  approvalsPending: nothing,
  streamOpened: () => nothing,
  webhookDelivery: nothing,
  a2aCall: nothing,
  rolloutRecord: nothing,
  countQueued: nothing,
};
