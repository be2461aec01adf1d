import { useState } from 'preact/hooks';
import { formatReward, formatSeconds, formatTimer } from '../state/format.js';
import { type ToolPart, toolElapsed } from '../state/run-transcript.js';
import { type ApprovalActions, ApprovalPanel, approvalVerdict } from './approval-panel.js';

/** Output longer than this many lines or characters is shown cut, with a button to see it all. */
const PREVIEW_LINES = 8;
const PREVIEW_CHARS = 600;

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
      return 'not run: the episode had already ended';
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

/** The output, cut to a preview when long; the button shows it all (and says so to screen readers). */
function ToolOutput({ id, output, truncated }: { id: string; output: string; truncated: boolean }) {
  const [expanded, setExpanded] = useState(false);
  const lines = output.split('\n');
  const long = lines.length > PREVIEW_LINES || output.length > PREVIEW_CHARS;
  const shown = long && !expanded ? preview(lines) : output;
  return (
    <div class="tool-output">
      <div class="tool-output-label">Output</div>
      <pre id={id} class={long && !expanded ? 'is-cut' : undefined}>
        {shown}
      </pre>
      {truncated ? <p class="tool-note">The bridge cut this output (RUNBRIDGE_TOOL_OUTPUT_EVENT_CHARS).</p> : null}
      {long ? (
        <button
          type="button"
          class="link-button"
          aria-expanded={expanded}
          aria-controls={id}
          onClick={() => setExpanded(!expanded)}
        >
          {expanded
            ? 'Show less'
            : lines.length > PREVIEW_LINES
              ? `Show all ${lines.length} lines`
              : `Show all ${output.length} characters`}
        </button>
      ) : null}
    </div>
  );
}

function preview(lines: string[]): string {
  const text = lines.slice(0, PREVIEW_LINES).join('\n');
  return text.length > PREVIEW_CHARS ? `${text.slice(0, PREVIEW_CHARS)}…` : `${text}\n…`;
}
