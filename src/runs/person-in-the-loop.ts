import { customAlphabet } from 'nanoid';
import { CapacityError, ConflictError, NotFoundError, RunbridgeError } from '../errors.js';
import { CONFIRM_WAIT_SECONDS } from '../protocol/confirm-wait.js';
import type { DecisionRequest } from '../protocol/decision-request.js';
import type { RunEventOf } from '../protocol/run-events.js';
import type { MessageContent } from '../protocol/run-request.js';
import { isFinishedStatus } from '../protocol/run-status.js';
import { approvalState, awaitApprovalOutcome } from './approval-outcome.js';
import type { ControlMessage, ControlOutcome } from './control-message.js';
import { MAX_WAITING_MESSAGES } from './run-inbox.js';
import type { OpenedRun } from './run-store.js';
import { StoreUnavailableError } from './store-unavailable-error.js';

export interface PersonInTheLoopOptions {
  /** The run `id` with its log, if `owner` may see it (and touches it); 404 otherwise. */
  open(id: string, owner: string): Promise<OpenedRun>;
  /** Sends a control message to the instance executing the run (see `ControlOutcome`). */
  send(id: string, message: ControlMessage): Promise<ControlOutcome>;
  /** Seconds a refused caller should wait (`Retry-After`), as every refusal of the runs says it. */
  retryAfterSeconds(): number;
  now: () => number;
}

const newId = customAlphabet('0123456789abcdefghijklmnopqrstuvwxyz', 20);

/** The 409 for a decision that came after the first one (or after the timeout, or the run's end). */
function approvalResolved(resolved: RunEventOf<'tool.approval_resolved'>): ConflictError {
  const who = { client: 'another decision', timeout: 'its timeout', cancel: 'the end of the run' }[resolved.by];
  return new ConflictError(
    `Approval "${resolved.approval_id}" was already decided (${resolved.decision}, by ${who}); the first decision wins. ` +
      "The run's tool.approval_resolved event says what was decided.",
    'approval_resolved',
  );
}

/** The 409 for a request about a run that has ended. */
function runEnded(id: string, status: string): ConflictError {
  return new ConflictError(`Run "${id}" has ended (${status}); start a new run to go on.`, 'run_ended');
}

/** The 409 for a message or decision to a run that executes nowhere any more (it ended, or the store lost it). */
function runGone(id: string): ConflictError {
  return new ConflictError(
    `Run "${id}" is no longer running on any instance (it ended, or the store lost it); read its snapshot, or start a new run.`,
    'run_ended',
  );
}

/** The 503 for a decision the run did not confirm in time: it may still take effect. */
function decisionUnconfirmed(id: string, cause?: unknown): RunbridgeError {
  return new RunbridgeError(
    `The decision was sent, but run "${id}" did not confirm it within ${CONFIRM_WAIT_SECONDS} s. ` +
      'Read its events or snapshot to see whether it took effect before sending it again.',
    { code: 'decision_unconfirmed', cause },
  );
}

/**
 * A person in the loop of a run (docs/protocol.md §7), as the routes see it: decisions about the tool
 * calls a run waits on, and messages into a live run. Each travels to the instance executing the run as
 * a control message; a decision is answered with what the run wrote of it.
 */
export class PersonInTheLoop {
  readonly #o: PersonInTheLoopOptions;

  constructor(options: PersonInTheLoopOptions) {
    this.#o = options;
  }

  /**
   * Decides approval `approvalId` of `owner`'s run (docs/protocol.md §7) and answers the run's
   * `tool.approval_resolved` once the run has written it: the decision is sent to the instance
   * executing the run, which takes the first decision only. 404 for an unknown approval (or run);
   * 409 `approval_resolved` when another decision, the timeout or the run's end came first; 503 when
   * the run does not confirm within {@link CONFIRM_WAIT_SECONDS}.
   */
  async decide(
    id: string,
    owner: string,
    approvalId: string,
    request: DecisionRequest,
  ): Promise<RunEventOf<'tool.approval_resolved'>> {
    const { now } = this.#o;
    const sentBy = now() + CONFIRM_WAIT_SECONDS * 1000;
    const { log } = await this.#o.open(id, owner);
    const state = approvalState(log, approvalId);
    if (state.kind === 'unknown') {
      throw new NotFoundError(
        `Run "${id}" has no approval "${approvalId}"; its pending approvals are in GET /v1/runs/${id} (pending_approvals).`,
        'approval_not_found',
      );
    }
    if (state.kind === 'resolved') throw approvalResolved(state.resolved);
    if (state.kind === 'ended') throw runEnded(id, log.summary.status);
    const decisionId = `dec_${newId()}`;
    try {
      // Sent, or `gone` (the run just ended): either way its log says what became of the approval.
      await this.#o.send(id, {
        type: 'approval',
        approval_id: approvalId,
        decision: request.decision,
        ...(request.arguments === undefined ? {} : { arguments: request.arguments }),
        ...(request.reason === undefined ? {} : { reason: request.reason }),
        decision_id: decisionId,
      });
    } catch (error) {
      // A command that timed out may still reach Redis once it answers again: the decision may yet take effect.
      if (error instanceof StoreUnavailableError) throw decisionUnconfirmed(id, error);
      throw error;
    }
    const outcome = await awaitApprovalOutcome(log, approvalId, Math.max(0, sentBy - now()), now);
    if (outcome === undefined) throw decisionUnconfirmed(id);
    if (outcome.kind === 'ended') throw runEnded(id, outcome.terminal.event.replace('run.', ''));
    if (outcome.decisionId !== decisionId) throw approvalResolved(outcome.resolved);
    return outcome.resolved;
  }

  /**
   * Sends `content` into `owner`'s run as a person's message (docs/protocol.md §7): the model reads
   * it before its next turn (`message.received`). 409 while the run is queued or once it has ended;
   * 429 when as many messages wait for the model as may.
   */
  async message(id: string, owner: string, content: MessageContent): Promise<{ message_id: string }> {
    const { status } = (await this.#o.open(id, owner)).log.summary;
    if (isFinishedStatus(status)) throw runEnded(id, status);
    if (status === 'queued') {
      throw new ConflictError(
        `Run "${id}" is still queued; send the message once it is running (its run.started event).`,
        'run_not_started',
      );
    }
    const messageId = `msg_${newId()}`;
    const outcome = await this.#o.send(id, { type: 'message', message_id: messageId, content });
    if (outcome === 'full') {
      throw new CapacityError(
        `Run "${id}" already holds ${MAX_WAITING_MESSAGES} messages the model has not read yet; send this one once it has read them (message.received).`,
        this.#o.retryAfterSeconds(),
        'too_many_messages',
      );
    }
    if (outcome === 'gone') throw runGone(id);
    return { message_id: messageId };
  }
}
