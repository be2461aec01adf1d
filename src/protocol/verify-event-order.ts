import { isTerminalEvent, type RunEvent } from './run-events.js';

/** Thrown by {@link assertEventOrder}; `violations` lists every broken rule, in log order. */
export class EventOrderError extends Error {
  constructor(readonly violations: string[]) {
    super(`Event log breaks the ordering rules:\n- ${violations.join('\n- ')}`);
    this.name = new.target.name;
  }
}

/**
 * Checks the rules every run log obeys (docs/protocol.md §1, §3.1) and returns each one broken:
 * `seq` runs 0, 1, 2, … with no gap under one `run_id`; `run.started` is seq 0; `prompt.available` comes
 * at most once, before any event of a turn; every
 * `tool.completed` follows its `tool.started` and every started tool completes; a call's
 * `tool.arguments.delta`s come before its `tool.started` and its `tool.progress` between that and
 * its `tool.completed`; every `tool.approval_required` is resolved once, by a later
 * `tool.approval_resolved`, before its call starts and before the terminal event, and a denied call
 * never starts; turns never go back; exactly one terminal event, and it is last. A log still being
 * written (`complete: false`) may lack its terminal event and have tools in flight or approvals open.
 */
export function findEventOrderViolations(events: readonly RunEvent[], options: { complete?: boolean } = {}): string[] {
  const complete = options.complete ?? true;
  const violations: string[] = [];
  const openTools = new Map<string, number>();
  const startedTools = new Set<string>();
  let terminalAt = -1;
  let lastTurn = 0;
  let promptAt = -1;
  /** Open approvals by id, with the call they hold (`turn:tool_call_id`, as call ids are unique per turn). */
  const openApprovals = new Map<string, string>();
  const resolvedApprovals = new Set<string>();
  /** Calls held by an open approval, and calls denied, by `turn:tool_call_id`. */
  const heldCalls = new Set<string>();
  const deniedCalls = new Set<string>();

  events.forEach((event, position) => {
    if (event.seq !== position) violations.push(`event at position ${position} has seq ${event.seq}`);
    if (event.run_id !== events[0]?.run_id) violations.push(`seq ${event.seq} belongs to run ${event.run_id}`);
    if (position === 0 && event.event !== 'run.started') violations.push(`seq 0 is ${event.event}, not run.started`);
    if (position > 0 && event.event === 'run.started') violations.push(`run.started repeated at seq ${event.seq}`);
    if (event.event === 'prompt.available') {
      if (promptAt >= 0) violations.push(`prompt.available repeated at seq ${event.seq}`);
      if (lastTurn > 0) violations.push(`prompt.available at seq ${event.seq} follows turn ${lastTurn}`);
      promptAt = event.seq;
    }
    if (terminalAt >= 0)
      violations.push(`${event.event} at seq ${event.seq} follows the terminal event at seq ${terminalAt}`);
    if ('turn' in event) {
      if (event.turn < lastTurn)
        violations.push(`turn goes back from ${lastTurn} to ${event.turn} at seq ${event.seq}`);
      lastTurn = Math.max(lastTurn, event.turn);
    }
    if (event.event === 'tool.approval_required') {
      if (openApprovals.has(event.approval_id) || resolvedApprovals.has(event.approval_id))
        violations.push(`approval ${event.approval_id} required twice`);
      openApprovals.set(event.approval_id, `${event.turn}:${event.tool_call_id}`);
      heldCalls.add(`${event.turn}:${event.tool_call_id}`);
    } else if (event.event === 'tool.approval_resolved') {
      const call = openApprovals.get(event.approval_id);
      if (call === undefined) {
        violations.push(`tool.approval_resolved for ${event.approval_id} at seq ${event.seq} has no open approval`);
      } else {
        openApprovals.delete(event.approval_id);
        heldCalls.delete(call);
        if (event.decision === 'deny') deniedCalls.add(call);
      }
      resolvedApprovals.add(event.approval_id);
    } else if (event.event === 'tool.started') {
      const call = `${event.turn}:${event.tool_call_id}`;
      if (heldCalls.has(call))
        violations.push(`tool call ${event.tool_call_id} started at seq ${event.seq} while its approval was open`);
      if (deniedCalls.has(call))
        violations.push(`tool call ${event.tool_call_id} started at seq ${event.seq} although it was denied`);
      if (openTools.has(event.tool_call_id)) violations.push(`tool call ${event.tool_call_id} started twice`);
      openTools.set(event.tool_call_id, event.seq);
      startedTools.add(event.tool_call_id);
    } else if (event.event === 'tool.arguments.delta') {
      if (startedTools.has(event.tool_call_id))
        violations.push(`tool.arguments.delta for ${event.tool_call_id} at seq ${event.seq} follows its tool.started`);
    } else if (event.event === 'tool.progress') {
      if (!openTools.has(event.tool_call_id))
        violations.push(`tool.progress for ${event.tool_call_id} at seq ${event.seq} has no open tool.started`);
    } else if (event.event === 'tool.completed') {
      if (!openTools.delete(event.tool_call_id)) {
        violations.push(`tool.completed for ${event.tool_call_id} at seq ${event.seq} has no open tool.started`);
      }
    } else if (isTerminalEvent(event)) {
      for (const [id, seq] of openTools) violations.push(`tool call ${id} started at seq ${seq} never completed`);
      for (const id of openApprovals.keys()) violations.push(`approval ${id} was never resolved`);
      openTools.clear();
      openApprovals.clear();
      terminalAt = event.seq;
    }
  });

  if (complete && terminalAt < 0) violations.push('the log has no terminal event');
  return violations;
}

/** Throws {@link EventOrderError} when {@link findEventOrderViolations} finds anything. */
export function assertEventOrder(events: readonly RunEvent[], options: { complete?: boolean } = {}): void {
  const violations = findEventOrderViolations(events, options);
  if (violations.length > 0) throw new EventOrderError(violations);
}
