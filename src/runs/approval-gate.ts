import { customAlphabet } from 'nanoid';
import type { ToolCall, ToolDefinition } from '../models/conversation.js';
import type { EventDetail } from '../protocol/event-detail.js';
import type { ApprovalDecider, ApprovalDecision, RunEventInput } from '../protocol/run-events.js';
import type { ApprovalPolicy } from '../protocol/run-request.js';
import { parseToolArguments } from './parse-tool-arguments.js';
import type { RunInbox } from './run-inbox.js';

const newApprovalId = customAlphabet('0123456789abcdefghijklmnopqrstuvwxyz', 20);

/** A tool call the gate holds: the call, its arguments as an object, and its run-wide index. */
export interface GatedCall {
  call: ToolCall;
  arguments: Record<string, unknown>;
  callIndex: number;
}

/** How one held call was decided. */
export interface Verdict {
  decision: ApprovalDecision;
  by: ApprovalDecider;
  /** What the call runs with when approved: a person's edit, or the model's own arguments. */
  arguments: Record<string, unknown>;
}

export interface ApprovalGateOptions {
  policy: ApprovalPolicy;
  inbox: RunInbox;
  emit: (event: RunEventInput, detail?: EventDetail) => void;
  now: () => number;
}

/**
 * The calls of a turn that `policy` holds for a decision, with their arguments as objects. A call
 * that would not reach the environment anyway (arguments that are not a JSON object, a tool that is
 * not offered) is not held: it fails as it would without a policy.
 */
export function heldCalls(
  calls: readonly ToolCall[],
  tools: readonly ToolDefinition[],
  policy: ApprovalPolicy,
): Array<Omit<GatedCall, 'callIndex'>> {
  return calls.flatMap((call) => {
    const listed = policy.tools === '*' || policy.tools.includes(call.name);
    const parsed = listed ? parseToolArguments(call.arguments) : null;
    const offered = tools.some((tool) => tool.name === call.name);
    return parsed && offered ? [{ call, arguments: parsed }] : [];
  });
}

interface Waiting extends GatedCall {
  approvalId: string;
}

/**
 * Holds a turn's `calls` for a person's decisions (docs/protocol.md §7): announces each with
 * `tool.approval_required`, then answers each with `tool.approval_resolved` as its decision comes —
 * in the order the decisions arrive, whatever order the calls came in — or as the timeout decides
 * (`on_timeout`). Resolves once every call is decided, with each call's verdict by call id. When
 * `signal` aborts (or an event cannot be written), every announced call still waiting is denied
 * `by: "cancel"` and the error is thrown, so no approval is left open.
 */
export async function awaitApprovals(
  calls: readonly GatedCall[],
  turn: number,
  signal: AbortSignal,
  options: ApprovalGateOptions,
): Promise<Map<string, Verdict>> {
  const { policy, inbox, emit, now } = options;
  const timeoutMs = policy.timeout_seconds * 1000;
  const onTimeout = policy.on_timeout;
  const deadline = now() + timeoutMs;
  const verdicts = new Map<string, Verdict>();
  const announced = new Map<string, Waiting>();

  const resolve = (entry: Waiting, verdict: Verdict, reason: string | undefined, decisionId?: string) => {
    verdicts.set(entry.call.id, verdict);
    inbox.close(entry.approvalId);
    const detail = decisionId === undefined ? undefined : { approval: { decision_id: decisionId } };
    emit(
      {
        event: 'tool.approval_resolved',
        approval_id: entry.approvalId,
        tool: entry.call.name,
        tool_call_id: entry.call.id,
        decision: verdict.decision,
        ...(reason === undefined ? {} : { reason }),
        by: verdict.by,
        arguments: verdict.arguments,
        edited: verdict.arguments !== entry.arguments,
        turn,
        call_index: entry.callIndex,
      },
      detail,
    );
  };

  try {
    const waiting = calls.map((gated): Waiting => ({ ...gated, approvalId: `appr_${newApprovalId()}` }));
    inbox.open(waiting.map((entry) => entry.approvalId));
    for (const entry of waiting) {
      emit({
        event: 'tool.approval_required',
        approval_id: entry.approvalId,
        tool: entry.call.name,
        tool_call_id: entry.call.id,
        arguments: entry.arguments,
        turn,
        call_index: entry.callIndex,
        expires_at: Math.round(deadline) / 1000,
        on_timeout: onTimeout,
      });
      announced.set(entry.approvalId, entry);
    }
    while (verdicts.size < announced.size) {
      for (const decision of inbox.takeDecisions()) {
        const entry = announced.get(decision.approvalId);
        if (!entry || verdicts.has(entry.call.id)) continue;
        const edited = decision.decision === 'approve' ? decision.arguments : undefined;
        resolve(
          entry,
          { decision: decision.decision, by: 'client', arguments: edited ?? entry.arguments },
          decision.reason,
          decision.decisionId,
        );
      }
      if (verdicts.size === announced.size) break;
      if (now() >= deadline) {
        for (const entry of announced.values()) {
          if (verdicts.has(entry.call.id)) continue;
          resolve(
            entry,
            { decision: onTimeout, by: 'timeout', arguments: entry.arguments },
            `No decision within ${timeoutMs / 1000} s; on_timeout is "${onTimeout}".`,
          );
        }
        break;
      }
      await inbox.wait(deadline, signal, now);
    }
  } catch (error) {
    for (const entry of announced.values()) {
      if (verdicts.has(entry.call.id)) continue;
      resolve(
        entry,
        { decision: 'deny', by: 'cancel', arguments: entry.arguments },
        'The run stopped while it waited.',
      );
    }
    throw error;
  }
  return verdicts;
}
