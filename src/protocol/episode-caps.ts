/**
 * What one model turn and one tool result may put into a run, so that a runaway or hostile model or
 * environment cannot take the bridge's memory or its time (docs/protocol.md §1.5–§1.7). The settings of
 * the same names override them (`RUNBRIDGE_MAX_TURN_OUTPUT_CHARS`, `RUNBRIDGE_MAX_TOOL_CALLS_PER_TURN`,
 * `RUNBRIDGE_TOOL_OUTPUT_STORED_CHARS`); these are their defaults, written once.
 */
export interface EpisodeCaps {
  /**
   * Characters of text, reasoning, tool arguments and token data (as JSON) one model turn may stream,
   * together; past it the run fails with `model_output_too_large` (§1.5).
   */
  maxTurnOutputChars: number;
  /** Tool calls of one turn that run or wait for approval; the model is told the rest were not run (§1.6). */
  maxToolCallsPerTurn: number;
  /**
   * Characters of one tool result the log keeps (the entry's detail: what the record holds and the model
   * reads next), and of a tool's error message; the rest is cut, and a note says so (§1.7).
   */
  toolOutputStoredChars: number;
}

/**
 * The caps a run has when nothing overrides them. A turn's 16 Mi characters leave room for the token
 * data of a long one: 32 000 tokens with their ids and logprobs come to about 3.5 million.
 */
export const EPISODE_CAPS: Readonly<EpisodeCaps> = {
  maxTurnOutputChars: 16 * 1024 * 1024,
  maxToolCallsPerTurn: 128,
  toolOutputStoredChars: 1024 * 1024,
};
