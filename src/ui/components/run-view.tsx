import { useEffect, useRef, useState } from 'preact/hooks';
import { AuthenticationError, type RunbridgeClient, type RunSnapshot, type RunStatus } from 'runbridge/client';
import { isFinishedStatus } from '../../protocol/run-status.js';
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
import { StatusBadge } from './status-badge.js';
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
  /** Move the focus to the run's heading once shown (after the person opened or started it). */
  focus: boolean;
}

/**
 * One run: its heading and status, the transcript as it streams — with the questions of calls waiting
 * for a decision — then, while it runs, a message box and a Stop button (which cancels it), and its outcome.
 */
export function RunView({ client, runId, announce, onEnd, onAuthError, focus }: RunViewProps) {
  const { transcript, snapshot, failure, resume } = useRunStream(client, runId, announce, onEnd);
  const [cancelling, setCancelling] = useState(false);
  const [cancelNotice, setCancelNotice] = useState<ErrorNotice>();
  const heading = useRef<HTMLHeadingElement>(null);
  const status = statusOf(transcript, snapshot);
  const active = !transcript.outcome && status !== 'loading' && !isFinishedStatus(status);
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
  return (
    <section class="run" aria-labelledby="run-title">
      <header class="run-head">
        <div class="run-head-text">
          <h1 id="run-title" ref={heading} tabIndex={-1}>
            {env === undefined ? 'Run' : `${env} · ${formatTask(started?.task ?? snapshot?.task)}`}
          </h1>
          <p class="run-meta">
            <StatusBadge status={status} />
            {(started?.model ?? snapshot?.model) ? <span>{started?.model ?? snapshot?.model}</span> : null}
            <code class="run-id">{runId}</code>
            <TraceLink snapshot={snapshot} />
          </p>
        </div>
      </header>

      <ol class="transcript" aria-label="Transcript">
        {input === undefined ? null : (
          <li class="entry entry-user">
            <div class="turn-label">You</div>
            <p class="user-bubble">{input}</p>
          </li>
        )}
        {transcript.turns.map((turn) => (
          <TurnView
            key={turn.turn}
            turn={turn}
            now={now}
            streaming={active && turn === lastTurn && turn.usage === undefined}
            actions={active ? actions : undefined}
          />
        ))}
        {active ? <Activity status={status} transcript={transcript} /> : null}
      </ol>

      {active ? (
        // Kept in view at the bottom of the window while the transcript grows above it.
        <div class="run-dock">
          {talking ? (
            <MessageComposer send={sendMessage} awaited={status === 'awaiting_input'} onAuthError={onAuthError} />
          ) : null}
          <button type="button" class="button button-danger stop-button" onClick={cancel} disabled={cancelling}>
            <span class="stop-icon" aria-hidden="true" />
            {cancelling ? 'Stopping…' : 'Stop'}
          </button>
          {cancelNotice ? <ErrorNoticeView notice={cancelNotice} /> : null}
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
      {notice ? (
        <ErrorNoticeView notice={notice}>
          {notice.action === 'resume' || notice.action === 'retry' ? (
            <button type="button" class="button" onClick={resume}>
              {notice.action === 'resume' ? 'Resume' : 'Try again'}
            </button>
          ) : null}
        </ErrorNoticeView>
      ) : null}
    </section>
  );
}

/** What the run is doing when nothing on screen moves: queued, starting, or waiting for the model's next turn. */
function Activity({ status, transcript }: { status: string; transcript: RunTranscript }) {
  if (status === 'queued') {
    return <li class="entry entry-activity">Queued: waiting for a free slot on the bridge…</li>;
  }
  // Waiting on the person: the question or the message box says so.
  if (status === 'requires_action' || status === 'awaiting_input') return null;
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
