/**
 * What one model turn may put into a run, so that a runaway or hostile model cannot take the bridge's
 * memory (docs/protocol.md §1.5). The setting of the same name overrides it
 * (`RUNBRIDGE_MAX_TURN_OUTPUT_CHARS`); this is its default, written once.
 */
export interface EpisodeCaps {
  /**
   * Characters of text, reasoning and tool arguments one model turn may stream, together; past it the
   * run fails with `model_output_too_large` (§1.5).
   */
  maxTurnOutputChars: number;
}

/** The caps a run has when nothing overrides them. */
export const EPISODE_CAPS: Readonly<EpisodeCaps> = {
  maxTurnOutputChars: 2 * 1024 * 1024,
};
