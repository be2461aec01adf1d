import { createInterface, type Interface } from 'node:readline';
import type { RunsApi } from '../client/runs-api.js';
import type { RunEvent, RunEventOf } from '../protocol/run-events.js';

/** What the prompts send to the bridge: decisions and messages, through the client. */
export type PromptedRuns = Pick<RunsApi, 'approve' | 'deny' | 'sendMessage'>;

export interface TerminalPromptsOptions {
  input: NodeJS.ReadableStream;
  output: NodeJS.WritableStream;
  runId: string;
  /** Ask for a decision on every call that waits for approval (`--approve`). */
  approve: boolean;
  /** Ask for the next message whenever the run waits for one (`--chat`). */
  chat: boolean;
  runs: PromptedRuns;
  /** Ctrl-C at a prompt, or the input ended with a decision to make: cancel, as Ctrl-C does anywhere else. */
  onInterrupt: () => void;
  /** The person ended the chat (`/exit` or Ctrl-D at its prompt): the run should end. */
  onLeave: () => void;
}

/**
 * The questions `runbridge run --approve` and `--chat` ask in the terminal (docs/protocol.md §7):
 * y / n / e(dit) for each call that waits for approval (an edit starts from the call's arguments
 * as JSON, on a line the user can change), and the next message whenever chat mode waits. Answers
 * go to the bridge's routes; what the run then does comes back as events, like everything else.
 */
export class TerminalPrompts {
  readonly #o: TerminalPromptsOptions;
  readonly #rl: Interface;
  #closed = false;
  #left = false;
  #interrupted = false;
  #pending: ((line: string | undefined) => void) | undefined;
  /** Lines that came before a question asked for them, oldest first. */
  readonly #lines: string[] = [];

  constructor(options: TerminalPromptsOptions) {
    this.#o = options;
    this.#rl = createInterface({ input: options.input, output: options.output });
    this.#rl.on('SIGINT', () => this.#interrupt());
    // Every line is kept until a question takes it: piped input arrives all at once, before the run asks
    // anything, and a person may type ahead while the model answers.
    this.#rl.on('line', (line) => (this.#pending ? this.#pending(line) : this.#lines.push(line)));
    this.#rl.on('close', () => {
      this.#closed = true;
      this.#pending?.(undefined);
    });
  }

  /** True once the person ended the chat: `/exit` or Ctrl-D at its prompt. */
  get left(): boolean {
    return this.#left;
  }

  /** Asks what `event` needs from the person, if anything, and sends the answer; resolves once it is sent. */
  async answer(event: RunEvent): Promise<void> {
    // After a cancel, the run's remaining events are only shown: its end is on its way.
    if (this.#left || this.#interrupted) return;
    if (this.#o.approve && event.event === 'tool.approval_required') await this.#decide(event);
    if (this.#o.chat && event.event === 'run.awaiting_input') await this.#chat();
  }

  /** Stops reading the terminal. */
  close(): void {
    this.#rl.close();
  }

  async #decide(event: RunEventOf<'tool.approval_required'>): Promise<void> {
    for (;;) {
      const reply = await this.#ask(`  approve ${event.tool}? [y]es / [n]o / [e]dit: `);
      // Without an answer (the input ended, or Ctrl-C): no one is left to decide, so the run is cancelled.
      if (reply === undefined) return this.#noAnswer();
      const choice = reply.trim().toLowerCase();
      const { runs, runId } = this.#o;
      let decide: () => Promise<unknown>;
      if (choice === 'y' || choice === 'yes') {
        decide = () => runs.approve(runId, event.approval_id);
      } else if (choice === 'n' || choice === 'no') {
        const reason = await this.#ask('  reason (optional): ');
        if (reason === undefined) return this.#noAnswer();
        decide = () => runs.deny(runId, event.approval_id, reason.trim() === '' ? {} : { reason: reason.trim() });
      } else if (choice === 'e' || choice === 'edit') {
        const text = await this.#ask('  arguments: ', JSON.stringify(event.arguments));
        if (text === undefined) return this.#noAnswer();
        const edited = parseObject(text);
        if (edited === undefined) {
          this.#write('  the arguments must be a JSON object, e.g. {"answer": 4}; try again.\n');
          continue;
        }
        decide = () => runs.approve(runId, event.approval_id, { arguments: edited });
      } else {
        this.#write('  type y to approve, n to deny, or e to edit the arguments first.\n');
        continue;
      }
      await decide().catch((error: unknown) => this.#notSent(error));
      return;
    }
  }

  async #chat(): Promise<void> {
    for (;;) {
      const line = await this.#ask('you> ');
      if (this.#interrupted) return;
      if (line === undefined || line.trim() === '/exit') return this.#leave();
      if (line.trim() === '') continue;
      await this.#o.runs.sendMessage(this.#o.runId, line).catch((error: unknown) => this.#notSent(error));
      return;
    }
  }

  /** A decision or message the bridge refused (or never got): said, and the run goes on. */
  #notSent(error: unknown): void {
    this.#write(`  not sent: ${error instanceof Error ? error.message : String(error)}\n`);
  }

  /**
   * The next line from the person, `prefill` already typed (in a terminal; piped input brings the whole
   * line); undefined once the input has ended. Input that is not a terminal is not echoed, so its
   * answer is written after the question, for the transcript to read as typed.
   */
  #ask(question: string, prefill?: string): Promise<string | undefined> {
    const echo = (line: string) => {
      if (!this.#rl.terminal) this.#write(`${line}\n`);
      return line;
    };
    const early = this.#lines.shift();
    if (early !== undefined) {
      // A terminal showed a line typed ahead as it was typed, under the output of the time.
      if (!this.#rl.terminal) this.#write(question);
      return Promise.resolve(echo(early));
    }
    if (this.#closed) return Promise.resolve(undefined);
    return new Promise((resolve) => {
      this.#pending = (line) => {
        this.#pending = undefined;
        resolve(line === undefined ? undefined : echo(line));
      };
      this.#rl.setPrompt(question);
      this.#rl.prompt();
      if (prefill !== undefined && this.#rl.terminal) this.#rl.write(prefill);
    });
  }

  /** Ctrl-C at a prompt, or the input ended while a decision was asked: the run is cancelled, the question dropped. */
  #interrupt(): void {
    const first = !this.#interrupted;
    this.#interrupted = true;
    this.#o.onInterrupt();
    if (first) this.#pending?.(undefined);
  }

  /** No answer came (the question was dropped by a Ctrl-C, or the input ended): cancel, unless that is done. */
  #noAnswer(): void {
    if (!this.#interrupted) this.#interrupt();
  }

  #leave(): void {
    this.#left = true;
    this.#o.onLeave();
  }

  #write(text: string): void {
    this.#o.output.write(text);
  }
}

function parseObject(text: string): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(text);
    return value !== null && typeof value === 'object' && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : undefined;
  } catch {
    return undefined;
  }
}
