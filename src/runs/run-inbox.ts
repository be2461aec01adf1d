import type { ApprovalDecision } from '../protocol/run-events.js';
import type { MessageContent } from '../protocol/run-request.js';

/** A client's decision about one approval, as a control message brings it (docs/protocol.md §7). */
export interface ClientDecision {
  approvalId: string;
  decision: ApprovalDecision;
  /** Edited arguments to run the call with (approve only). */
  arguments?: Record<string, unknown>;
  reason?: string;
  /** Names this decision, so the request that sent it learns whether it was the one taken. */
  decisionId: string;
}

/** A message a person sent into the run. */
export interface PostedMessage {
  messageId: string;
  content: MessageContent;
}

/** How many posted messages may wait for the model at once; past it a post is refused (429). */
export const MAX_WAITING_MESSAGES = 16;

/**
 * What people send into one running episode — decisions about its approvals and messages for the
 * model — held until the episode takes them. Decisions count only for approvals the episode has
 * opened, and only the first decision of each counts: a later one, or one for an approval already
 * decided, is dropped, so racing clients cannot both win. The episode parks on {@link wait} while it
 * waits on a person; whoever executes the run hears when such a wait begins and ends.
 */
export class RunInbox {
  readonly #messages: PostedMessage[] = [];
  readonly #open = new Set<string>();
  readonly #decisions = new Map<string, ClientDecision>();
  readonly #waitListeners = new Set<(waiting: boolean) => void>();
  #wake: (() => void) | undefined;
  #waiting = false;

  /** True while the episode waits on a person (a decision or a message). */
  get waiting(): boolean {
    return this.#waiting;
  }

  /** True when no further message may wait ({@link MAX_WAITING_MESSAGES}). */
  get full(): boolean {
    return this.#messages.length >= MAX_WAITING_MESSAGES;
  }

  /** True when messages wait to be taken. */
  get hasMessages(): boolean {
    return this.#messages.length > 0;
  }

  /** Queues `message` for the model; false (and nothing queued) when the inbox is {@link full}. */
  post(message: PostedMessage): boolean {
    if (this.full) return false;
    this.#messages.push(message);
    this.#wake?.();
    return true;
  }

  /** Takes every waiting message, oldest first. */
  takeMessages(): PostedMessage[] {
    return this.#messages.splice(0);
  }

  /** Starts taking decisions for `approvalIds`. */
  open(approvalIds: readonly string[]): void {
    for (const id of approvalIds) this.#open.add(id);
  }

  /** Keeps `decision` if its approval is open and undecided; drops it otherwise. */
  decide(decision: ClientDecision): void {
    if (!this.#open.has(decision.approvalId) || this.#decisions.has(decision.approvalId)) return;
    this.#decisions.set(decision.approvalId, decision);
    this.#wake?.();
  }

  /** Takes the decisions made so far, in the order they arrived, closing their approvals to further decisions. */
  takeDecisions(): ClientDecision[] {
    const decisions = [...this.#decisions.values()];
    for (const decision of decisions) this.close(decision.approvalId);
    return decisions;
  }

  /** Closes an approval that was settled otherwise (its timeout, a cancel): decisions for it are dropped. */
  close(approvalId: string): void {
    this.#open.delete(approvalId);
    this.#decisions.delete(approvalId);
  }

  /**
   * Waits on a person until anything arrives (a decision or a message), until `deadline` (epoch ms
   * by `now`), or until `signal` aborts, when it rejects with the signal's reason. The listeners of
   * {@link onWait} hear it begin and end.
   */
  async wait(deadline: number, signal: AbortSignal, now: () => number): Promise<void> {
    signal.throwIfAborted();
    let timer: NodeJS.Timeout | undefined;
    let onAbort: (() => void) | undefined;
    try {
      await new Promise<void>((resolve, reject) => {
        this.#wake = resolve;
        timer = setTimeout(resolve, Math.max(0, deadline - now()));
        onAbort = () => reject(signal.reason);
        signal.addEventListener('abort', onAbort, { once: true });
        // Told last: a listener may cancel the run at once (a server that is shutting down).
        this.#setWaiting(true);
      });
    } finally {
      this.#wake = undefined;
      clearTimeout(timer);
      if (onAbort) signal.removeEventListener('abort', onAbort);
      this.#setWaiting(false);
    }
  }

  /** Calls `listener(true)` when the episode begins waiting on a person, `listener(false)` when it stops. */
  onWait(listener: (waiting: boolean) => void): () => void {
    this.#waitListeners.add(listener);
    return () => this.#waitListeners.delete(listener);
  }

  #setWaiting(waiting: boolean): void {
    this.#waiting = waiting;
    for (const listener of this.#waitListeners) listener(waiting);
  }
}
