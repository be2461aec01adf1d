import { type Logger, silentLogger } from './logger.js';
import type { RunTraceContext } from './trace-context.js';

/** The run an observer watches. */
export interface ObservedRun {
  id: string;
  env: string;
  /** `provider:name`. */
  model: string;
  /** Where the run sits in a trace (its record's), if it was made while tracing. */
  trace: RunTraceContext | undefined;
}

/** One model call as the episode makes it. */
export interface ModelCallInfo {
  turn: number;
  /** `provider:name`. */
  model: string;
  sampling: { temperature?: number; top_p?: number; max_tokens?: number; seed?: number };
  /** The conversation sent; read only when message content is recorded. */
  messages: () => unknown;
}

/** What the episode learns of a model call while it streams; read when the call ends. */
export interface ModelCallResult {
  inputTokens: number;
  outputTokens: number;
  /** The finish reason, once the call finished. */
  finishReason: string | undefined;
  /** What the model answered; read only when message content is recorded. */
  output: (() => unknown) | undefined;
}

/** One tool call as the episode sends it to the environment. */
export interface ToolCallInfo {
  name: string;
  callId: string;
  /** Its arguments; read only when message content is recorded. */
  arguments: () => unknown;
}

/** How a tool call came out, as far as the episode knows without a throw. */
export interface ToolCallResult {
  /** Why the call failed without throwing (`tool_error`, `ors_server_error`, `invalid_arguments`, `unknown_tool`). */
  errorType: string | undefined;
  /** The tool's output; read only when message content is recorded. */
  output: (() => unknown) | undefined;
}

/** How a run ended, for its last log line, its counters and its span. */
export interface RunOutcome {
  status: 'completed' | 'failed' | 'cancelled';
  turns: number;
  reward: number | null;
  inputTokens: number;
  outputTokens: number;
  /** The `run.failed` code. */
  errorCode?: string;
  /** Why a completed run stopped, or why a run was cancelled. */
  reason?: string;
  /** From `run.started` to the end, when the observer did not time it itself. */
  durationMs?: number;
}

/**
 * What the bridge's three signals hear of one run executing here (docs/operations.md): the episode
 * passes each model call, tool call, ORS session step and wait on a person through it, and it turns
 * them into spans, metrics and log lines. Every `work` runs inside the step's span, so the requests it
 * sends carry `traceparent`. With telemetry off each method just runs `work`.
 */
export interface RunObserver {
  /** The run's logger: every line carries `run_id` (and `trace_id` when tracing). */
  readonly log: Logger;
  /** Runs the episode inside the run's span. */
  within<T>(work: () => Promise<T>): Promise<T>;
  /** One model call (`chat {model}`), the `result` filled in by `work`. */
  modelCall<T>(info: ModelCallInfo, work: (result: ModelCallResult) => Promise<T>): Promise<T>;
  /** One tool call (`execute_tool {name}`), the `result` filled in by `work`. */
  toolCall<T>(info: ToolCallInfo, work: (result: ToolCallResult) => Promise<T>): Promise<T>;
  /** Opening the ORS session and reading its prompt and tools, or deleting it. */
  orsSession<T>(step: 'setup' | 'teardown', work: () => Promise<T>): Promise<T>;
  /** Waiting on a person: for decisions on held tool calls, or for a message. */
  wait<T>(kind: 'approval' | 'input', work: () => Promise<T>): Promise<T>;
  /** Tool calls waiting for a decision: `delta` more (or fewer). */
  approvals(delta: number): void;
  /** The run ended, and the store holds that end (its terminal event is written). */
  end(outcome: RunOutcome): void;
  /**
   * The run stopped here as `here` says, but the store holds another end: another instance ended it (it
   * took this one for lost), or will, this end not stored before this one stopped. That instance logs and
   * counts the end; this one says what it had, so nothing played here is dropped without a word.
   */
  endedElsewhere(here: RunOutcome): void;
}

/** An observer that only runs the work and logs nowhere: a run's when no telemetry is given (rollouts, tests). */
export const QUIET_OBSERVER: RunObserver = {
  log: silentLogger,
  within: (work) => work(),
  modelCall: (_info, work) => work({ inputTokens: 0, outputTokens: 0, finishReason: undefined, output: undefined }),
  toolCall: (_info, work) => work({ errorType: undefined, output: undefined }),
  orsSession: (_step, work) => work(),
  wait: (_kind, work) => work(),
  approvals: () => undefined,
  end: () => undefined,
  endedElsewhere: () => undefined,
};
