import type { RunEvent, RunEventOf } from '../../protocol/run-events.js';
import type { LoggedEvent } from '../../runs/event-log.js';
import { isStreamedOutput } from './open-streams.js';

/**
 * What a format needs to know about tool calls whose arguments streamed (`tool.arguments.delta`),
 * read from the log before an event, so frames stay a pure function of the log (see
 * `open-streams.ts`). A call's pieces all come in its turn's stretch of streamed output, before its
 * `tool.started`.
 */

/** A tool call as its first `tool.arguments.delta` announced it. */
export type AnnouncedCall = Pick<RunEventOf<'tool.arguments.delta'>, 'tool_call_id' | 'tool' | 'call_index'>;

/**
 * True when the `tool.arguments.delta` at `seq` is the first of its call. Scans back only through
 * the stretch, and stops at the call's previous piece, which is nearly always close by.
 */
export function isFirstPiece(log: readonly LoggedEvent[], seq: number, toolCallId: string): boolean {
  for (let index = seq - 1; index >= 0; index--) {
    const event = log[index]!.event;
    if (!isStreamedOutput(event)) return true;
    if (event.event === 'tool.arguments.delta' && event.tool_call_id === toolCallId) return false;
  }
  return true;
}

/** The calls announced in the stretch that ends just before `seq`, in the order they were announced. */
export function callsInStretchBefore(log: readonly LoggedEvent[], seq: number): AnnouncedCall[] {
  const calls = new Map<string, AnnouncedCall>();
  for (let index = seq - 1; index >= 0; index--) {
    const event = log[index]!.event;
    if (!isStreamedOutput(event)) break;
    if (event.event === 'tool.arguments.delta') moveToEnd(calls, event);
  }
  return [...calls.values()].reverse();
}

/**
 * True when the call `toolCallId` of `turn` was shown before `seq` (its `tool.started`): its arguments
 * streamed, or it waited for approval (`tool.approval_required` shows it whole). Scans back through
 * that turn's events only.
 */
export function wasAnnounced(log: readonly LoggedEvent[], seq: number, toolCallId: string, turn: number): boolean {
  for (let index = seq - 1; index >= 0; index--) {
    const event = log[index]!.event;
    if (!('turn' in event) || event.turn !== turn) return false;
    if (isAnnouncement(event) && event.tool_call_id === toolCallId) return true;
  }
  return false;
}

/**
 * The calls of the last turn before `seq` that were announced (their arguments streamed, or they
 * waited for approval) but never started and were not denied — calls after the one that finished the
 * episode, or a call the model was still writing when the run ended — in the order they were
 * announced. Meant for the terminal event; scans back through the last turn only.
 */
export function callsNeverStartedBefore(log: readonly LoggedEvent[], seq: number): AnnouncedCall[] {
  const last = log[seq - 1]?.event;
  if (last === undefined || !('turn' in last)) return [];
  const settled = new Set<string>();
  const calls = new Map<string, AnnouncedCall>();
  for (let index = seq - 1; index >= 0; index--) {
    const event = log[index]!.event;
    if (!('turn' in event) || event.turn !== last.turn) break;
    if (event.event === 'tool.started') settled.add(event.tool_call_id);
    if (event.event === 'tool.approval_resolved' && event.decision === 'deny') settled.add(event.tool_call_id);
    if (isAnnouncement(event)) moveToEnd(calls, event);
  }
  return [...calls.values()].reverse().filter((call) => !settled.has(call.tool_call_id));
}

/** The events that show a call before it starts. */
function isAnnouncement(event: RunEvent): event is RunEventOf<'tool.arguments.delta' | 'tool.approval_required'> {
  return event.event === 'tool.arguments.delta' || event.event === 'tool.approval_required';
}

/**
 * Puts the call of `event` last in `calls`. Scanning the log backwards, a call ends up placed by the
 * last announcement seen, which is its first: reversed, `calls` is in the order the calls were announced.
 */
function moveToEnd(
  calls: Map<string, AnnouncedCall>,
  event: RunEventOf<'tool.arguments.delta' | 'tool.approval_required'>,
): void {
  calls.delete(event.tool_call_id);
  calls.set(event.tool_call_id, { tool_call_id: event.tool_call_id, tool: event.tool, call_index: event.call_index });
}
