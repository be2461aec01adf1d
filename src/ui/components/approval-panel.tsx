import { useState } from 'preact/hooks';
import { ConflictError } from 'runbridge/client';
import { describeError, type ErrorNotice } from '../state/describe-error.js';
import { escapeInvisible } from '../state/escape-invisible.js';
import { formatClock } from '../state/format.js';
import type { ToolApproval, ToolPart } from '../state/run-transcript.js';
import { ErrorNoticeView } from './error-notice.js';

/** What a person can decide about a call that waits (docs/protocol.md §7); each resolves once the bridge confirmed. */
export interface ApprovalActions {
  approve(approvalId: string, args?: Record<string, unknown>): Promise<void>;
  deny(approvalId: string, reason?: string): Promise<void>;
}

/**
 * The question a waiting call puts to the person: approve it, approve it with edited arguments, or
 * deny it with a reason the model is told. It goes away in every open tab once the run writes
 * `tool.approval_resolved`, whoever decided; a decision that came second says so. It says what the
 * timeout will decide, and when. The tool's name and the arguments to edit show bidi and invisible
 * characters escaped (`\u202E`): JSON escapes, so the arguments parse to what the model sent.
 */
export function ApprovalPanel({
  part,
  approval,
  actions,
}: {
  part: ToolPart;
  approval: ToolApproval;
  actions: ApprovalActions;
}) {
  const [mode, setMode] = useState<'ask' | 'edit' | 'deny'>('ask');
  const [argumentsText, setArgumentsText] = useState(() =>
    escapeInvisible(JSON.stringify(part.arguments ?? {}, null, 2)),
  );
  const [reason, setReason] = useState('');
  const [busy, setBusy] = useState(false);
  const [problem, setProblem] = useState<ErrorNotice | string>();
  const ids = { args: `edit-${part.id}`, reason: `reason-${part.id}`, hint: `approval-hint-${part.id}` };
  const tool = escapeInvisible(part.tool);

  const send = async (decide: () => Promise<void>, doing: string) => {
    setBusy(true);
    setProblem(undefined);
    try {
      await decide();
    } catch (error) {
      setBusy(false);
      setProblem(
        error instanceof ConflictError && error.code === 'approval_resolved'
          ? 'Someone else decided first; their decision stands.'
          : describeError(error, doing, location.origin),
      );
    }
  };
  const approveEdited = (event: Event) => {
    event.preventDefault();
    let edited: unknown;
    try {
      edited = JSON.parse(argumentsText);
    } catch {
      setProblem('The arguments are not valid JSON.');
      return;
    }
    if (edited === null || typeof edited !== 'object' || Array.isArray(edited)) {
      setProblem('The arguments must be a JSON object, like {"expression": "2 + 2"}.');
      return;
    }
    void send(() => actions.approve(approval.id, edited as Record<string, unknown>), 'approve the call');
  };
  const deny = (event: Event) => {
    event.preventDefault();
    void send(() => actions.deny(approval.id, reason.trim() === '' ? undefined : reason.trim()), 'deny the call');
  };

  return (
    <fieldset class="approval">
      <legend class="visually-hidden">Approve {tool}?</legend>
      <p class="approval-question" id={ids.hint}>
        <strong>Run {tool}?</strong> Nothing reaches the environment until you decide. If no one decides by{' '}
        {formatClock(approval.expiresAt)},{' '}
        {approval.onTimeout === 'approve' ? 'it is approved and runs' : 'it is denied'}.
      </p>
      {mode === 'ask' ? (
        <div class="approval-actions">
          <button
            type="button"
            class="button button-primary"
            disabled={busy}
            aria-describedby={ids.hint}
            onClick={() => void send(() => actions.approve(approval.id), 'approve the call')}
          >
            Approve
          </button>
          <button type="button" class="button" disabled={busy} onClick={() => setMode('edit')}>
            Edit arguments
          </button>
          <button type="button" class="button button-danger" disabled={busy} onClick={() => setMode('deny')}>
            Deny
          </button>
        </div>
      ) : null}
      {mode === 'edit' ? (
        <form class="approval-form" onSubmit={approveEdited}>
          <label for={ids.args}>Arguments (JSON)</label>
          <textarea
            id={ids.args}
            class="code-input"
            rows={Math.min(12, argumentsText.split('\n').length + 1)}
            value={argumentsText}
            spellcheck={false}
            onInput={(event) => setArgumentsText(event.currentTarget.value)}
          />
          <FormActions submit="Approve with these arguments" tone="primary" busy={busy} back={() => setMode('ask')} />
        </form>
      ) : null}
      {mode === 'deny' ? (
        <form class="approval-form" onSubmit={deny}>
          <label for={ids.reason}>
            Why not? <span class="optional">optional, the model is told</span>
          </label>
          <input id={ids.reason} type="text" value={reason} onInput={(event) => setReason(event.currentTarget.value)} />
          <FormActions submit="Deny the call" tone="danger" busy={busy} back={() => setMode('ask')} />
        </form>
      ) : null}
      {typeof problem === 'string' ? (
        <p class="approval-problem" role="alert">
          {problem}
        </p>
      ) : problem ? (
        <ErrorNoticeView notice={problem} />
      ) : null}
    </fieldset>
  );
}

/** The buttons under a form of the question: send it, or go back to the three choices. */
function FormActions({
  submit,
  tone,
  busy,
  back,
}: {
  submit: string;
  tone: 'primary' | 'danger';
  busy: boolean;
  back: () => void;
}) {
  return (
    <div class="approval-actions">
      <button type="submit" class={`button button-${tone}`} disabled={busy}>
        {submit}
      </button>
      <button type="button" class="button" disabled={busy} onClick={back}>
        Back
      </button>
    </div>
  );
}

/** What was decided about a call, in a few words: who, what, and why. */
export function approvalVerdict(approval: ToolApproval): string | undefined {
  if (approval.decision === undefined) return undefined;
  const who = { client: 'by a person', timeout: 'by the timeout', cancel: 'as the run ended' }[approval.by ?? 'client'];
  const what = approval.decision === 'approve' ? 'Approved' : 'Denied';
  const edited = approval.edited ? ', with edited arguments' : '';
  const why = approval.reason ? `: ${approval.reason}` : '';
  return `${what} ${who}${edited}${why}`;
}
