import { useState } from 'preact/hooks';
import type { TurnEntry } from '../state/run-transcript.js';
import type { ApprovalActions } from './approval-panel.js';
import { CopyButton } from './copy-button.js';
import { MarkdownView } from './markdown-view.js';
import { ToolCard } from './tool-card.js';

/** How much of the reasoning shows under its folded block while it streams. */
const PREVIEW_CHARS = 140;

/**
 * One model turn: its reasoning in a collapsible block, then its text and tool calls in the order
 * the model produced them, after what the person said before it. `streaming` marks the turn whose
 * text is still arriving; `actions` decide its calls that wait for a person.
 */
export function TurnView({
  turn,
  now,
  streaming,
  actions,
  failedWith,
}: {
  turn: TurnEntry;
  now: number;
  streaming: boolean;
  actions: ApprovalActions | undefined;
  /** The message of the run's failure, which its outcome shows. */
  failedWith: string | undefined;
}) {
  const lastText = turn.parts.findLastIndex((part) => part.kind === 'text');
  return (
    <>
      {turn.messages.map((message) => (
        <li key={message.id} class="entry entry-user">
          <div class="turn-label">You</div>
          <p class="user-bubble" dir="auto">
            {message.text}
          </p>
        </li>
      ))}
      <TurnEntryView
        turn={turn}
        now={now}
        streaming={streaming}
        actions={actions}
        lastText={lastText}
        failedWith={failedWith}
      />
    </>
  );
}

function TurnEntryView({
  turn,
  now,
  streaming,
  actions,
  lastText,
  failedWith,
}: {
  turn: TurnEntry;
  now: number;
  streaming: boolean;
  actions: ApprovalActions | undefined;
  lastText: number;
  failedWith: string | undefined;
}) {
  if (turn.parts.length === 0 && turn.reasoning === undefined) return null;
  return (
    <li class="entry entry-turn">
      <div class="turn-label">Turn {turn.turn}</div>
      {turn.reasoning ? <Reasoning text={turn.reasoning.text} complete={turn.reasoning.complete} /> : null}
      {turn.parts.map((part, index) =>
        part.kind === 'text' ? (
          <MarkdownView
            key={`text-${index}`}
            text={part.text}
            // The caret (drawn by CSS after the last block) marks the text still arriving.
            class={
              streaming && index === lastText && index === turn.parts.length - 1
                ? 'assistant-text is-streaming'
                : 'assistant-text'
            }
          />
        ) : (
          <ToolCard key={part.id} part={part} now={now} actions={actions} failedWith={failedWith} />
        ),
      )}
      {lastText >= 0 && !streaming ? (
        <div class="turn-actions">
          <CopyButton text={markdownOf(turn)} what={`the answer of turn ${turn.turn} as Markdown`} />
        </div>
      ) : null}
    </li>
  );
}

/** The turn's reasoning, folded; while it streams, its latest words show under the fold. */
function Reasoning({ text, complete }: { text: string; complete: boolean }) {
  const [open, setOpen] = useState(false);
  return (
    <div class="reasoning">
      <details onToggle={(event) => setOpen(event.currentTarget.open)}>
        <summary>
          Reasoning
          <span class="reasoning-meta">{complete ? ` · ${countWords(text)} words` : ' · thinking…'}</span>
        </summary>
        <MarkdownView class="reasoning-text" text={text} />
      </details>
      {open || complete ? null : (
        <p class="reasoning-preview" aria-hidden="true" dir="auto">
          {text.length > PREVIEW_CHARS ? `…${text.slice(-PREVIEW_CHARS)}` : text}
        </p>
      )}
    </div>
  );
}

/** The Markdown the model wrote in `turn`: its texts, a blank line between two that a tool call parted. */
function markdownOf(turn: TurnEntry): string {
  return turn.parts.flatMap((part) => (part.kind === 'text' ? [part.text] : [])).join('\n\n');
}

function countWords(text: string): number {
  return text.split(/\s+/).filter((word) => word !== '').length;
}
