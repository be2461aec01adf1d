import { isTerminalEvent, type RunEvent } from './run-events.js';

/** Thrown by {@link assertEventOrder}; `violations` lists every broken rule, in log order. */
export class EventOrderError extends Error {
  constructor(readonly violations: string[]) {
    super(`Event log breaks the ordering rules:\n- ${violations.join('\n- ')}`);
    this.name = new.target.name;
  }
}

/**
 * Checks the rules every run log obeys (CONTRACT §1, §3.1) and returns each one broken:
 * `seq` runs 0, 1, 2, … with no gap under one `run_id`; `run.started` is seq 0; every
 * `tool.completed` follows its `tool.started` and every started tool completes; a call's
 * `tool.arguments.delta`s come before its `tool.started` and its `tool.progress` between that and
 * its `tool.completed`; turns never go back; exactly one terminal event, and it is last. A log still
 * being written (`complete: false`) may lack its terminal event and have tools in flight.
 */
export function findEventOrderViolations(events: readonly RunEvent[], options: { complete?: boolean } = {}): string[] {
  const complete = options.complete ?? true;
  const violations: string[] = [];
  const openTools = new Map<string, number>();
  const startedTools = new Set<string>();
  let terminalAt = -1;
  let lastTurn = 0;

  events.forEach((event, position) => {
    if (event.seq !== position) violations.push(`event at position ${position} has seq ${event.seq}`);
    if (event.run_id !== events[0]?.run_id) violations.push(`seq ${event.seq} belongs to run ${event.run_id}`);
    if (position === 0 && event.event !== 'run.started') violations.push(`seq 0 is ${event.event}, not run.started`);
    if (position > 0 && event.event === 'run.started') violations.push(`run.started repeated at seq ${event.seq}`);
    if (terminalAt >= 0)
      violations.push(`${event.event} at seq ${event.seq} follows the terminal event at seq ${terminalAt}`);
    if ('turn' in event) {
      if (event.turn < lastTurn)
        violations.push(`turn goes back from ${lastTurn} to ${event.turn} at seq ${event.seq}`);
      lastTurn = Math.max(lastTurn, event.turn);
    }
    if (event.event === 'tool.started') {
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
      openTools.clear();
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
