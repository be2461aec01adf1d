import { escapeInvisible } from '../state/escape-invisible.js';
import { formatReward, formatSeconds, formatTimer } from '../state/format.js';
import { type ToolPart, toolElapsed } from '../state/run-transcript.js';
import { type ApprovalActions, ApprovalPanel, approvalVerdict } from './approval-panel.js';
import { ToolOutput } from './tool-output.js';

/**
 * One tool call as a card: its name and arguments (streaming in while the model writes them), a
 * running timer while the environment runs it, then its duration, output, error, reward and whether
 * it finished the episode. `now` is the page's clock, ticking while a call runs. A call that waits for a
 * person shows the question (`actions` decide it), and once decided, what was decided. Its name and
 * arguments show bidi and invisible characters escaped (`\u202E`), so what a person reads is what runs.
 * Each thing is said once: an output that only repeats the call's error is not shown again, and an error
 * that is the run's failure (`failedWith`, e.g. `instance_lost`) is left to the run's outcome.
 */
export function ToolCard({
  part,
  now,
  actions,
  failedWith,
}: {
  part: ToolPart;
  now: number;
  actions: ApprovalActions | undefined;
  failedWith: string | undefined;
}) {
  const failed = part.result?.error === true;
  const error = part.result?.errorMessage;
  const name = escapeInvisible(part.tool);
  const waiting = part.approval !== undefined && part.approval.decision === undefined && part.state === 'forming';
  const state = failed ? 'failed' : waiting ? 'waiting' : part.state;
  const verdict = part.approval === undefined ? undefined : approvalVerdict(part.approval);
  return (
    <article class={`tool-card tool-${state}`} aria-label={`Tool call ${name}: ${stateLabel(part, now)}`}>
      <header class="tool-head">
        <span class="tool-icon" aria-hidden="true">
          {failed || part.state === 'denied' ? '!' : part.state === 'done' ? '✓' : waiting ? '?' : '⚙'}
        </span>
        <code class="tool-name">{name}</code>
        <span class={`tool-state state-${state}`}>
          {part.state === 'running' ? <span class="spinner" aria-hidden="true" /> : null}
          <span class="tool-timer">{stateLabel(part, now)}</span>
        </span>
      </header>
      <ToolArguments part={part} />
      {waiting && part.approval && actions ? (
        <ApprovalPanel part={part} approval={part.approval} actions={actions} />
      ) : null}
      {verdict ? (
        <p class={`tool-verdict verdict-${part.approval?.decision}`} dir="auto">
          {verdict}
        </p>
      ) : null}
      {!error ? null : error === failedWith ? (
        <p class="tool-error">The run failed while this call ran: see why below.</p>
      ) : (
        <p class="tool-error" dir="auto">
          {error}
        </p>
      )}
      {part.result && part.result.output !== '' && !repeatsError(part) ? (
        <ToolOutput id={`output-${part.id}`} output={part.result.output} truncated={part.result.truncated} />
      ) : null}
      {part.result && (part.result.reward !== null || part.result.finished) ? (
        <footer class="tool-foot">
          {part.result.reward !== null ? (
            <span class="chip chip-reward">reward {formatReward(part.result.reward)}</span>
          ) : null}
          {part.result.finished ? <span class="chip chip-finished">episode finished</span> : null}
        </footer>
      ) : null}
    </article>
  );
}

/** True when the call's output is its error again (the bridge writes both), whole or cut for the event. */
function repeatsError(part: ToolPart): boolean {
  const result = part.result;
  if (!result?.errorMessage) return false;
  return result.truncated ? result.errorMessage.startsWith(result.output) : result.output === result.errorMessage;
}

function stateLabel(part: ToolPart, now: number): string {
  switch (part.state) {
    case 'forming':
      return part.approval?.decision === undefined && part.approval
        ? 'waiting for your decision'
        : 'preparing the call…';
    case 'running':
      return `running · ${formatTimer(toolElapsed(part, now))}`;
    case 'done':
      return `${part.result?.error ? 'failed' : 'done'} · ${formatSeconds(part.result?.duration ?? 0)}`;
    case 'not-run':
      return `not run: ${part.notRunBecause ?? 'the episode had already ended'}`;
    case 'denied':
      return 'denied: not run';
  }
}

/** Arguments whose JSON is no longer than this stay on one line, as the model streamed them. */
const ONE_LINE_ARGUMENTS = 72;

/**
 * The arguments: the raw text as it streams, then the JSON the call ran with (indented when long),
 * invisible and bidi characters escaped.
 */
function ToolArguments({ part }: { part: ToolPart }) {
  const text = escapeInvisible(part.arguments === undefined ? part.argumentsText : argumentsText(part.arguments));
  if (text === '' || text === '{}') {
    return part.state === 'forming' ? <p class="tool-args-empty">writing the arguments…</p> : null;
  }
  return (
    <div class="tool-args">
      <span class="visually-hidden">Arguments</span>
      <pre>
        {text}
        {part.state === 'forming' && part.approval === undefined ? <span class="caret" aria-hidden="true" /> : null}
      </pre>
    </div>
  );
}

function argumentsText(value: Record<string, unknown>): string {
  // JSON.stringify escapes line breaks inside strings, so every line break here is indentation.
  const line = JSON.stringify(value, null, 1).replace(/\n\s*/g, ' ');
  return line.length <= ONE_LINE_ARGUMENTS ? line : JSON.stringify(value, null, 2);
}
