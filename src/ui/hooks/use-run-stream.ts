import { useCallback, useEffect, useRef, useState } from 'preact/hooks';
import type { AnyRunEvent, RunbridgeClient, RunSnapshot } from 'runbridge/client';
import { Narrator } from '../state/narrator.js';
import { emptyTranscript, foldRunEvent, type RunTranscript } from '../state/run-transcript.js';
import { transcriptStore } from '../state/transcript-store.js';

/** How often events that arrived are drawn: fast enough to look live, few enough renders for a fast stream. */
const DRAW_MS = 30;
/** How often the transcript on screen is stored for a reload (and always when the page is left). */
const SAVE_MS = 1000;

/** What {@link useRunStream} gives the page: the run as it stands, and what went wrong following it. */
export interface RunStream {
  transcript: RunTranscript;
  /** The run's snapshot when the page opened it: its status then, creation time and metadata. */
  snapshot: RunSnapshot | undefined;
  /** What stopped the page from following the run, if anything: a client error. */
  failure: unknown;
  /** Follows the run again from the last event shown (after a broken connection). */
  resume: () => void;
}

/**
 * Follows run `runId`: shows the transcript this tab stored for it at once, then reads the run's
 * events after that transcript's cursor (`runs.events(runId, {after})`, which sends `Last-Event-ID`
 * and resumes broken connections by itself), folding each in. So a reload resumes where the page
 * was — nothing twice, nothing lost — and opening another run replays its log from the start. The
 * stream is read with `fetch`, which can send the API key as a header, so no stream token is needed.
 * Events newer than the run's snapshot at opening are live: they go to `announce` (docs/ui.md).
 */
export function useRunStream(
  client: RunbridgeClient,
  runId: string,
  announce: (sentences: string[]) => void,
  onEnd: () => void,
): RunStream {
  const [transcript, setTranscript] = useState(() => transcriptStore.load(runId) ?? emptyTranscript(runId));
  const [snapshot, setSnapshot] = useState<RunSnapshot>();
  const [failure, setFailure] = useState<unknown>();
  const [attempt, setAttempt] = useState(0);
  // The page's latest callbacks, without restarting the stream each time they change.
  const callbacks = useRef({ announce, onEnd });
  callbacks.current = { announce, onEnd };

  useEffect(() => {
    const controller = new AbortController();
    const { signal } = controller;
    let current = transcriptStore.load(runId) ?? emptyTranscript(runId);
    const pending: Array<[AnyRunEvent, number]> = [];
    let drawTimer: ReturnType<typeof setTimeout> | undefined;
    let savedAt = 0;

    const fold = () => {
      for (const [event, receivedAt] of pending.splice(0)) current = foldRunEvent(current, event, receivedAt);
    };
    const save = () => {
      savedAt = Date.now();
      transcriptStore.save(current);
    };
    const draw = () => {
      drawTimer = undefined;
      fold();
      setTranscript(current);
      if (Date.now() - savedAt >= SAVE_MS) save();
    };
    // A reload or a closed tab: store everything that arrived, drawn or not, with its cursor.
    const leave = () => {
      if (drawTimer !== undefined) clearTimeout(drawTimer);
      drawTimer = undefined;
      fold();
      save();
    };

    setTranscript(current);
    setFailure(undefined);
    addEventListener('pagehide', leave);
    (async () => {
      const opened = await client.runs.get(runId, { signal });
      setSnapshot(opened);
      if (current.outcome) return;
      const narrator = new Narrator();
      for await (const event of client.runs.events(runId, { after: current.lastSeq, signal })) {
        pending.push([event, Date.now()]);
        drawTimer ??= setTimeout(draw, DRAW_MS);
        if (event.seq > opened.last_seq) {
          const sentences = narrator.push(event);
          if (sentences.length > 0) callbacks.current.announce(sentences);
        }
      }
      leave();
      setTranscript(current);
      callbacks.current.onEnd();
    })().catch((error: unknown) => {
      if (signal.aborted) return;
      leave();
      setTranscript(current);
      setFailure(error);
    });

    return () => {
      controller.abort();
      removeEventListener('pagehide', leave);
      leave();
    };
  }, [client, runId, attempt]);

  const resume = useCallback(() => setAttempt((count) => count + 1), []);
  return { transcript, snapshot, failure, resume };
}
