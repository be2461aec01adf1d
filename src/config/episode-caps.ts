import type { EpisodeCaps } from '../protocol/episode-caps.js';
import type { Config } from './settings.js';

/** The caps of every episode as the settings give them (docs/protocol.md §1.5–§1.7). */
export function episodeCaps(config: Config): EpisodeCaps {
  return {
    maxTurnOutputChars: config.maxTurnOutputChars,
    maxToolCallsPerTurn: config.maxToolCallsPerTurn,
    toolOutputStoredChars: config.toolOutputStoredChars,
  };
}
