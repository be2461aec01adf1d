import type { RunEvent } from '../protocol/run-events.js';
import type { MessageContent } from '../protocol/run-request.js';

const STYLES = {
  dim: [2, 22],
  bold: [1, 22],
  red: [31, 39],
  green: [32, 39],
  yellow: [33, 39],
  cyan: [36, 39],
} as const;
type Style = keyof typeof STYLES;

/**
 * Turns run events into terminal text for `runbridge run`: streamed reasoning (dim) and answer text,
 * one line per tool call with its duration and result, and a summary with the reward at the end.
 * Keeps only the state needed to place line breaks; colours only when `color` is set (a TTY).
 */
export class RunRenderer {
  #section: 'none' | 'reasoning' | 'text' = 'none';
  /** The turn whose reasoning was streamed as deltas, so its `reasoning.available` is not printed twice. */
  #streamedTurn = 0;

  constructor(private readonly color: boolean) {}

  /** The text to print for `event` (possibly empty). */
  render(event: RunEvent): string {
    switch (event.event) {
      case 'run.started': {
        const task = 'spec' in event.task ? 'custom task' : `${event.task.split}[${event.task.index}]`;
        return `${this.#paint('bold', `▶ ${event.run_id}`)} ${this.#paint('dim', `env ${event.env} · task ${task} · model ${event.model}`)}\n`;
      }
      case 'reasoning.delta':
        this.#streamedTurn = event.turn;
        return this.#enter('reasoning', this.#paint('dim', '  thinking: ')) + this.#paint('dim', event.delta);
      case 'message.delta':
        return this.#enter('text', '  ') + event.delta;
      case 'reasoning.available':
        // Already streamed as deltas when the provider streams reasoning; printed whole otherwise.
        return this.#streamedTurn === event.turn
          ? ''
          : `${this.#enter('reasoning', this.#paint('dim', '  thinking: '))}${this.#paint('dim', event.text)}`;
      case 'tool.started':
        return `${this.#leave()}${this.#paint('cyan', `  ⚙ ${event.tool}`)} ${this.#paint('dim', event.preview)}\n`;
      case 'tool.completed': {
        const mark = event.error ? this.#paint('red', '✗') : this.#paint('green', '✓');
        const result = oneLine(event.error ? (event.error_message ?? event.output) : event.output, 100);
        const reward = event.reward === null ? '' : this.#paint('yellow', ` reward ${event.reward}`);
        const finished = event.finished ? this.#paint('yellow', ' (episode finished)') : '';
        return `    ${mark} ${event.tool} ${this.#paint('dim', `${event.duration.toFixed(2)}s`)} → ${result}${reward}${finished}\n`;
      }
      case 'tool.approval_required':
        return `${this.#leave()}${this.#paint('yellow', `  ? ${event.tool}`)} ${this.#paint('dim', oneLine(JSON.stringify(event.arguments), 100))} ${this.#paint('yellow', 'needs approval')}\n`;
      case 'tool.approval_resolved': {
        const by = event.by === 'client' ? '' : this.#paint('dim', ` (${event.by})`);
        const reason = event.reason === undefined || event.by !== 'client' ? '' : `: ${oneLine(event.reason, 80)}`;
        if (event.decision === 'deny') return `    ${this.#paint('red', '✗ denied')} ${event.tool}${reason}${by}\n`;
        const edits = event.edited ? ` with ${oneLine(JSON.stringify(event.arguments), 80)}` : '';
        return `    ${this.#paint('green', '✓ approved')} ${event.tool}${edits}${by}\n`;
      }
      case 'message.received':
        return `${this.#leave()}${this.#paint('bold', '  you:')} ${oneLine(messageText(event.content), 200)}\n`;
      case 'run.awaiting_input':
        return `${this.#leave()}${this.#paint('dim', '  (waiting for your message)')}\n`;
      case 'message.dropped':
        return `${this.#leave()}${this.#paint('yellow', '  (a message of yours was not read: the run ended first)')}\n`;
      // Not printed: the terminal follows what the model does, and a prompt can be pages long.
      case 'prompt.available':
      case 'turn.completed':
      case 'tool.arguments.delta':
      case 'tool.progress':
        return '';
      case 'run.completed': {
        const reward = event.reward === null ? 'no reward' : `reward ${event.reward}`;
        const summary = `${reward} · ${event.turns} turns · ${event.usage.total_tokens} tokens · stop: ${event.stop_reason}`;
        return `${this.#leave()}${this.#paint('green', '■ completed')} ${this.#paint('bold', summary)}\n`;
      }
      case 'run.failed':
        return `${this.#leave()}${this.#paint('red', `■ failed [${event.code}]`)} ${event.error}\n`;
      case 'run.cancelled':
        return `${this.#leave()}${this.#paint('yellow', `■ cancelled (${event.reason})`)}\n`;
    }
  }

  #enter(section: 'reasoning' | 'text', prefix: string): string {
    if (this.#section === section) return '';
    const text = `${this.#leave()}${prefix}`;
    this.#section = section;
    return text;
  }

  #leave(): string {
    const wasOpen = this.#section !== 'none';
    this.#section = 'none';
    return wasOpen ? '\n' : '';
  }

  #paint(style: Style, text: string): string {
    if (!this.color) return text;
    const [open, close] = STYLES[style];
    return `\u001b[${open}m${text}\u001b[${close}m`;
  }
}

/** The text of a message's content; images show as `[image]`. */
function messageText(content: MessageContent): string {
  if (typeof content === 'string') return content;
  return content.map((part) => (part.type === 'text' ? part.text : '[image]')).join(' ');
}

function oneLine(text: string, max: number): string {
  const line = text.replace(/\s+/g, ' ').trim();
  return line.length > max ? `${line.slice(0, max - 1)}…` : line;
}
