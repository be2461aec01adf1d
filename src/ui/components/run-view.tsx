import { useEffect, useLayoutEffect, useRef, useState } from 'preact/hooks';
import { AuthenticationError, type RunbridgeClient, type RunSnapshot, type RunStatus } from 'runbridge/client';
import { isFinishedStatus } from '../../protocol/run-status.js';
import { useFollowStream } from '../hooks/use-follow-stream.js';
import { useNow } from '../hooks/use-now.js';
import { useRunStream } from '../hooks/use-run-stream.js';
import { describeError, type ErrorNotice } from '../state/describe-error.js';
import { formatTask } from '../state/format.js';
import { hasRunningTool, type RunTranscript } from '../state/run-transcript.js';
import { uiInputOf } from '../state/ui-metadata.js';
import type { ApprovalActions } from './approval-panel.js';
import { ErrorNoticeView } from './error-notice.js';
import { MessageComposer } from './message-composer.js';
import { RunOutcomeView } from './run-outcome.js';
import { type ShownStatus, StatusBadge } from './status-badge.js';
import { TaskPrompt } from './task-prompt.js';
import { TraceLink } from './trace-link.js';
import { TurnView } from './turn-view.js';

export interface RunViewProps {
  client: RunbridgeClient;
  runId: string;
  /** Sentences for the screen reader's live region. */
  announce: (sentences: string[]) => void;
  /** The run has ended (or the page saw its end): the run list may have changed. */
  onEnd: () => void;
  /** A request was refused for want of a valid key. */
  onAuthError: () => void;
  /** The status the run's heading shows, as it changes: the run list shows the same. */
  onStatus: (status: ShownStatus) => void;
  /** Move the focus to the run's heading once shown (after the person opened or started it). */
  focus: boolean;
}

/**
 * One run: its heading and status, the transcript as it streams — with the questions of calls waiting
 * for a decision — then, while it runs, a message box and a Stop button (which cancels it), and its outcome.
 */
export function RunView({ client, runId, announce, onEnd, onAuthError, onStatus, focus }: RunViewProps) {
  const { transcript, snapshot, failure, lost, resume } = useRunStream(client, runId, announce, onEnd);
  const [cancelling, setCancelling] = useState(false);
  const [cancelNotice, setCancelNotice] = useState<ErrorNotice>();
  const heading = useRef<HTMLHeadingElement>(null);
  const section = useRef<HTMLElement>(null);
  const dock = useRef<HTMLDivElement>(null);
  const status = statusOf(transcript, snapshot);
  const active = !transcript.outcome && status !== 'loading' && !isFinishedStatus(status);
  // While the bridge does not answer, what the run does is not known: say so rather than its last status.
  const shown: ShownStatus = lost && active ? 'disconnected' : status;
  // Once seen running, the run is followed to its end, so its outcome comes into view as it did.
  const seenRunning = useRef(false);
  seenRunning.current ||= active;
  const { behind, jump } = useFollowStream(seenRunning.current, section);
  // Messages can reach a run once it has started (a queued one answers 409 run_not_started).
  const talking = active && status !== 'queued' && transcript.started !== undefined;
  const now = useNow(hasRunningTool(transcript));
  const input = uiInputOf(snapshot);
  const notice = failure === undefined ? undefined : describeError(failure, 'follow the run', location.origin);

  useEffect(() => {
    if (focus) heading.current?.focus();
  }, [focus]);
  useEffect(() => {
    if (failure instanceof AuthenticationError || cancelNotice?.action === 'key') onAuthError();
  }, [failure, cancelNotice, onAuthError]);
  // Before the page is painted, so the run list never shows another status than the heading.
  useLayoutEffect(() => onStatus(shown), [shown, onStatus]);

  const cancel = async () => {
    setCancelling(true);
    setCancelNotice(undefined);
    try {
      await client.runs.cancel(runId);
    } catch (error) {
      setCancelling(false);
      setCancelNotice(describeError(error, 'cancel the run', location.origin));
    }
  };

  const actions: ApprovalActions = {
    approve: async (approvalId, args) => {
      await client.runs.approve(runId, approvalId, args === undefined ? {} : { arguments: args });
    },
    deny: async (approvalId, reason) => {
      await client.runs.deny(runId, approvalId, reason === undefined ? {} : { reason });
    },
  };
  const sendMessage = async (text: string) => {
    await client.runs.sendMessage(runId, text);
  };

  const started = transcript.started;
  const env = started?.env ?? snapshot?.env;
  const lastTurn = transcript.turns.at(-1);
  const failedWith = transcript.outcome?.kind === 'failed' ? transcript.outcome.error : undefined;
  // Why the page cannot follow the run; while the run is on, in the dock, where it is in view.
  const followNotice = notice ? (
    <ErrorNoticeView
      notice={lost ? { ...notice, message: `${notice.message} The page keeps trying to reconnect.` } : notice}
    >
      {notice.action === 'resume' || notice.action === 'retry' ? (
        <button type="button" class="button" onClick={resume}>
          {lost ? 'Reconnect now' : 'Try again'}
        </button>
      ) : null}
    </ErrorNoticeView>
  ) : null;
  // Over the message box while the run is on; once it ended, on its own at the bottom of the window.
  const jumpButton = behind ? (
    <button
      type="button"
      class="button button-small jump-button"
      onClick={() => {
        jump();
        // The button goes once at the latest; the focus goes to what is there: the message box (or Stop), or the outcome.
        const next = active
          ? dock.current?.querySelector<HTMLElement>('textarea, .stop-button')
          : section.current?.querySelector<HTMLElement>('.outcome h2');
        next?.focus({ preventScroll: true });
      }}
    >
      <span aria-hidden="true">↓</span> Jump to latest
    </button>
  ) : null;
  return (
    <section class="run" aria-labelledby="run-title" ref={section}>
      <header class="run-head">
        <div class="run-head-text">
          <h1 id="run-title" ref={heading} tabIndex={-1}>
            {env === undefined ? 'Run' : `${env} · ${formatTask(started?.task ?? snapshot?.task)}`}
          </h1>
          <p class="run-meta">
            <StatusBadge status={shown} />
            {(started?.model ?? snapshot?.model) ? <span>{started?.model ?? snapshot?.model}</span> : null}
            <code class="run-id">{runId}</code>
            <TraceLink snapshot={snapshot} />
          </p>
        </div>
      </header>

      <ol class="transcript" aria-label="Transcript">
        {transcript.prompt === undefined ? null : (
          <li class="entry entry-task">
            <TaskPrompt text={transcript.prompt} />
          </li>
        )}
        {input === undefined ? null : (
          <li class="entry entry-user">
            <div class="turn-label">You</div>
            <p class="user-bubble" dir="auto">
              {input}
            </p>
          </li>
        )}
        {transcript.turns.map((turn) => (
          <TurnView
            key={turn.turn}
            turn={turn}
            now={now}
            streaming={active && turn === lastTurn && turn.usage === undefined}
            actions={active ? actions : undefined}
            failedWith={failedWith}
          />
        ))}
        {active ? <Activity status={shown} transcript={transcript} /> : null}
      </ol>

      {active ? (
        // Kept in view at the bottom of the window while the transcript grows above it.
        <div class="run-dock" ref={dock}>
          {jumpButton}
          {talking ? (
            <MessageComposer send={sendMessage} awaited={shown === 'awaiting_input'} onAuthError={onAuthError} />
          ) : null}
          <button type="button" class="button button-danger stop-button" onClick={cancel} disabled={cancelling}>
            <span class="stop-icon" aria-hidden="true" />
            {cancelling ? 'Stopping…' : 'Stop'}
          </button>
          {cancelNotice ? <ErrorNoticeView notice={cancelNotice} /> : null}
          {followNotice}
        </div>
      ) : null}
      {transcript.droppedMessages > 0 ? (
        <p class="notice notice-dropped" role="status">
          {transcript.droppedMessages === 1
            ? 'A message you sent was not read: the run ended first.'
            : `${transcript.droppedMessages} messages you sent were not read: the run ended first.`}
        </p>
      ) : null}
      {transcript.outcome ? <RunOutcomeView outcome={transcript.outcome} /> : null}
      {active ? null : followNotice}
      {active || !jumpButton ? null : <div class="run-dock run-dock-ended">{jumpButton}</div>}
    </section>
  );
}

/** What the run is doing when nothing on screen moves: queued, starting, or waiting for the model's next turn. */
function Activity({ status, transcript }: { status: ShownStatus; transcript: RunTranscript }) {
  if (status === 'queued') {
    return <li class="entry entry-activity">Queued: waiting for a free slot on the bridge…</li>;
  }
  // Waiting on the person (the question or the message box says so), or on the connection (its notice does).
  if (status === 'requires_action' || status === 'awaiting_input' || status === 'disconnected') return null;
  const last = transcript.turns.at(-1);
  const lastPart = last?.parts.at(-1);
  const waiting =
    last === undefined ||
    (lastPart?.kind === 'tool' ? lastPart.state === 'done' : last.usage !== undefined && !hasRunningTool(transcript));
  if (!waiting) return null;
  return (
    <li class="entry entry-activity">
      <span class="dots" aria-hidden="true">
        <span />
        <span />
        <span />
      </span>
      {transcript.started ? 'Waiting for the model…' : 'Starting…'}
    </li>
  );
}

/**
 * The run's status as the page knows it: as its events say (the server's own fold) once it has any;
 * before that the snapshot's (a run still queued), or `loading`.
 */
function statusOf(transcript: RunTranscript, snapshot: RunSnapshot | undefined): RunStatus | 'loading' {
  if (transcript.lastSeq >= 0) return transcript.standing.status;
  return snapshot?.status ?? 'loading';
}
