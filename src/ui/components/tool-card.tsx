import { formatReward, formatSeconds, formatTimer } from '../state/format.js';
import { type ToolPart, toolElapsed } from '../state/run-transcript.js';
import { type ApprovalActions, ApprovalPanel, approvalVerdict } from './approval-panel.js';
import { ToolOutput } from './tool-output.js';

/**
 * One tool call as a card: its name and arguments (streaming in while the model writes them), a
 * running timer while the environment runs it, then its duration, output, error, reward and whether
 * it finished the episode. `now` is the page's clock, ticking while a call runs. A call that waits for a
 * person shows the question (`actions` decide it), and once decided, what was decided.
 */
export function ToolCard({
  part,
  now,
  actions,
}: {
  part: ToolPart;
  now: number;
  actions: ApprovalActions | undefined;
}) {
  const failed = part.result?.error === true;
  const waiting = part.approval !== undefined && part.approval.decision === undefined && part.state === 'forming';
  const state = failed ? 'failed' : waiting ? 'waiting' : part.state;
  const verdict = part.approval === undefined ? undefined : approvalVerdict(part.approval);
  return (
    <article class={`tool-card tool-${state}`} aria-label={`Tool call ${part.tool}: ${stateLabel(part, now)}`}>
      <header class="tool-head">
        <span class="tool-icon" aria-hidden="true">
          {failed || part.state === 'denied' ? '!' : part.state === 'done' ? '✓' : waiting ? '?' : '⚙'}
        </span>
        <code class="tool-name">{part.tool}</code>
        <span class={`tool-state state-${state}`}>
          {part.state === 'running' ? <span class="spinner" aria-hidden="true" /> : null}
          <span class="tool-timer">{stateLabel(part, now)}</span>
        </span>
      </header>
      <ToolArguments part={part} />
      {waiting && part.approval && actions ? (
        <ApprovalPanel part={part} approval={part.approval} actions={actions} />
      ) : null}
      {verdict ? <p class={`tool-verdict verdict-${part.approval?.decision}`}>{verdict}</p> : null}
      {part.result?.errorMessage ? <p class="tool-error">{part.result.errorMessage}</p> : null}
      {part.result && part.result.output !== '' ? (
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

/** The arguments: the raw text as it streams, then the JSON the call ran with (indented when long). */
function ToolArguments({ part }: { part: ToolPart }) {
  const text = part.arguments === undefined ? part.argumentsText : argumentsText(part.arguments);
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
