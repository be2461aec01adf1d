import { type AnyRunEvent, isKnownRunEvent } from 'runbridge/client';
import { formatSeconds } from './format.js';

/**
 * Turns a run's live events into short sentences for a screen reader's polite live region
 * (docs/ui.md, Accessibility). Streaming text is read a sentence at a time — announcing every token
 * would make a screen reader stutter or fall minutes behind — and tool calls and the run's end
 * in a few words each. One narrator per followed stream; history replayed on opening is not narrated.
 */
export class Narrator {
  #pending = '';

  /** What to announce for `event`: nothing, or one or more sentences. */
  push(event: AnyRunEvent): string[] {
    if (!isKnownRunEvent(event)) return [];
    switch (event.event) {
      case 'message.delta':
        return this.#text(event.delta);
      case 'tool.started':
        return [...this.#flush(), `Calling ${event.tool}.`];
      case 'tool.completed': {
        const reward = event.reward === null ? '' : `, reward ${event.reward}`;
        const outcome = event.error ? 'failed' : 'finished';
        return [`${event.tool} ${outcome} after ${formatSeconds(event.duration)}${reward}.`];
      }
      case 'turn.completed':
        return this.#flush();
      case 'tool.approval_required':
        return [...this.#flush(), `${event.tool} waits for your decision.`];
      case 'tool.approval_resolved':
        return [`${event.tool} ${event.decision === 'approve' ? 'approved' : 'denied'}.`];
      case 'run.awaiting_input':
        return [...this.#flush(), 'Your turn: the model waits for your message.'];
      case 'run.completed': {
        const reward = event.reward === null ? '' : ` with reward ${event.reward}`;
        return [...this.#flush(), `Run completed${reward}.`];
      }
      case 'run.failed':
        return [...this.#flush(), `Run failed: ${event.error}`];
      case 'run.cancelled':
        return [...this.#flush(), 'Run cancelled.'];
      default:
        return [];
    }
  }

  /** The finished sentences of the text so far; the unfinished rest waits for more. */
  #text(delta: string): string[] {
    this.#pending += delta;
    const end = lastSentenceEnd(this.#pending);
    if (end < 0) return [];
    const done = this.#pending.slice(0, end + 1).trim();
    this.#pending = this.#pending.slice(end + 1);
    return done === '' ? [] : [done];
  }

  #flush(): string[] {
    const rest = this.#pending.trim();
    this.#pending = '';
    return rest === '' ? [] : [rest];
  }
}

/** Index of the last character that ends a sentence (`.`, `!`, `?` or `:` before a space, or a line break), or -1. */
function lastSentenceEnd(text: string): number {
  for (let index = text.length - 1; index >= 0; index--) {
    const char = text[index]!;
    if (char === '\n') return index;
    if ('.!?:'.includes(char) && index + 1 < text.length && /\s/.test(text[index + 1]!)) return index;
  }
  return -1;
}
