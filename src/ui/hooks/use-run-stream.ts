import { useCallback, useEffect, useRef, useState } from 'preact/hooks';
import {
  type AnyRunEvent,
  ApiError,
  ConnectionError,
  type RunbridgeClient,
  type RunSnapshot,
  StreamInterruptedError,
} from 'runbridge/client';
import { Narrator } from '../state/narrator.js';
import { emptyTranscript, foldRunEvent, type RunTranscript } from '../state/run-transcript.js';
import { transcriptStore } from '../state/transcript-store.js';

/** How often events that arrived are drawn: fast enough to look live, few enough renders for a fast stream. */
const DRAW_MS = 30;
/** How often the transcript on screen is stored for a reload (and always when the page is left). */
const SAVE_MS = 1000;
/**
 * The page's waits before it tries a lost connection again: at once (a cut that the bridge answers
 * again right away was no loss), then longer, never past the last.
 */
const RECONNECT_MS = [0, 1000, 2000, 5000, 10_000];
/** Answers that say the bridge (or the proxy before it) cannot serve now: the connection is lost, not the run. */
const UNREACHABLE_STATUSES = new Set([502, 503, 504]);

/** What {@link useRunStream} gives the page: the run as it stands, and what went wrong following it. */
export interface RunStream {
  transcript: RunTranscript;
  /** The run's snapshot when the page opened it: its status then, creation time and metadata. */
  snapshot: RunSnapshot | undefined;
  /** What stopped the page from following the run, if anything: a client error. */
  failure: unknown;
  /**
   * The bridge stopped answering: `failure` is why, and the page tries again by itself (sooner with
   * `resume`). Known the moment a broken stream cannot reconnect, so the page never shows a run as
   * waiting for the person while it cannot hear it.
   */
  lost: boolean;
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
 * The client gives up on a broken stream after one failed reconnection (App makes it so): the page
 * says the connection is lost at once, and goes on trying with waits of its own.
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
  const [lost, setLost] = useState(false);
  /** Tries in a row that found the bridge unreachable. */
  const lostTries = useRef(0);
  // The page's latest callbacks, without restarting the stream each time they change.
  const callbacks = useRef({ announce, onEnd });
  callbacks.current = { announce, onEnd };

  useEffect(() => {
    const controller = new AbortController();
    const { signal } = controller;
    let current = transcriptStore.load(runId) ?? emptyTranscript(runId);
    const pending: Array<[AnyRunEvent, number]> = [];
    let drawTimer: ReturnType<typeof setTimeout> | undefined;
    let retryTimer: ReturnType<typeof setTimeout> | undefined;
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
    addEventListener('pagehide', leave);
    (async () => {
      const opened = await client.runs.get(runId, { signal });
      setSnapshot(opened);
      lostTries.current = 0;
      setLost(false);
      setFailure(undefined);
      if (current.outcome) return;
      const narrator = new Narrator();
      for await (const event of client.runs.events(runId, { after: current.lastSeq, signal })) {
        lostTries.current = 0;
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
      const unreachable = isUnreachable(error);
      setLost(unreachable);
      if (!unreachable) return;
      const wait = RECONNECT_MS[Math.min(lostTries.current, RECONNECT_MS.length - 1)];
      lostTries.current += 1;
      retryTimer = setTimeout(() => setAttempt((count) => count + 1), wait);
    });

    return () => {
      controller.abort();
      if (retryTimer !== undefined) clearTimeout(retryTimer);
      removeEventListener('pagehide', leave);
      leave();
    };
  }, [client, runId, attempt]);

  const resume = useCallback(() => setAttempt((count) => count + 1), []);
  return { transcript, snapshot, failure, lost, resume };
}

/** True when `error` means the bridge could not be reached, rather than that it refused. */
function isUnreachable(error: unknown): boolean {
  return (
    error instanceof StreamInterruptedError ||
    error instanceof ConnectionError ||
    (error instanceof ApiError && UNREACHABLE_STATUSES.has(error.status))
  );
}
