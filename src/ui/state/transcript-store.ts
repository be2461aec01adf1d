import type { RunTranscript } from './run-transcript.js';

/** The one slot of this tab's storage that holds the transcript on screen and its cursor. */
const KEY = 'runbridge.ui.transcript';
/** Bumped when {@link RunTranscript} changes shape, so a stored one of another shape is ignored. */
const VERSION = 4;

/**
 * Keeps the transcript on screen in the tab's `sessionStorage`, so a reload shows it at once and
 * resumes its run's stream after `lastSeq` instead of replaying the whole log (docs/ui.md). The
 * transcript and its cursor are written as one value, so what is read back is always a consistent
 * pair: at worst an older one, whose stream then resumes from further back. One run per tab is kept.
 */
export const transcriptStore = {
  /** The stored transcript of `runId`, or undefined when this tab holds none for that run. */
  load(runId: string): RunTranscript | undefined {
    try {
      const stored = JSON.parse(sessionStorage.getItem(KEY) ?? 'null') as {
        version?: number;
        transcript?: RunTranscript;
      } | null;
      if (stored?.version !== VERSION || stored.transcript?.runId !== runId) return undefined;
      return stored.transcript;
    } catch {
      return undefined;
    }
  },

  /**
   * Stores `transcript`, replacing the one held. When the storage is full (a long run with large tool
   * outputs) nothing is kept: a reload then replays the stream from the start, which is slower, not wrong.
   */
  save(transcript: RunTranscript): void {
    try {
      sessionStorage.setItem(KEY, JSON.stringify({ version: VERSION, transcript }));
    } catch {
      sessionStorage.removeItem(KEY);
    }
  },
};
