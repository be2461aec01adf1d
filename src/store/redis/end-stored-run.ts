import type { CancelReason, RunEventInput, RunEventOf } from '../../protocol/run-events.js';
import type { EventLog } from '../../runs/event-log.js';
import { newRunLog, type RunRecord } from '../../runs/run-record.js';
import type { EndedRun } from '../../runs/run-streams.js';
import { listItemOf } from '../../runs/snapshot-of.js';
import type { RedisConnection } from './redis-connection.js';
import type { RedisKeys } from './redis-keys.js';
import { appendEntries } from './run-mirrors.js';
import type { StreamEntry } from './stream-follower.js';

/** How a run that no instance executes any more ends: failed with a code, or cancelled. */
export type RunEnding =
  | { event: 'run.failed'; code: 'instance_lost'; error: string }
  | { event: 'run.cancelled'; reason: CancelReason };

export interface EndStoredRunDeps {
  connection: RedisConnection;
  keys: RedisKeys;
  /** How long a finished run's keys live. */
  expireMs: number;
  now: () => number;
}

/**
 * Ends run `id` in Redis for the instance that held it, which no longer executes it (docs/protocol.md §8.2):
 * reads its log, then appends the events that close a run cut off mid-way — each approval still
 * waiting denied `by: "cancel"`, each tool call still open completed with `error: true`, then `ending` —
 * fenced as any append: only while `holder` holds the run, its log has not grown meanwhile, and (with
 * `lease`, for a lost instance) that lease is gone. So of every instance that tries, one ends it, once.
 * Returns the run as ended, or undefined when it was not (gone, ended already, or no longer `holder`'s).
 */
export async function endStoredRun(
  deps: EndStoredRunDeps,
  id: string,
  holder: string,
  ending: RunEnding,
  lease = '',
): Promise<EndedRun | undefined> {
  const { connection, keys, now } = deps;
  const [recordJson, state] = await connection.run(() => connection.command.hmget(keys.run(id), 'record', 'state'));
  if (!recordJson || state !== 'running') return undefined;
  const record = JSON.parse(recordJson) as RunRecord;
  const log = newRunLog(record, { maxEvents: Number.POSITIVE_INFINITY, now });
  const entries = (await connection.run(() => connection.command.xrange(keys.log(id), '-', '+'))) as StreamEntry[];
  appendEntries(log, entries);
  if (log.terminal) return undefined;
  const from = log.length;
  for (const input of closingEvents(record, log, now(), ending)) log.append(input);
  const added = log.entries.slice(from);
  const outcome = await connection.script(
    'rbAppend',
    keys.prefix,
    {
      id,
      holder,
      first: from,
      count: added.length,
      snapshot: JSON.stringify(listItemOf(record, log)),
      bytes: added.reduce((bytes, entry) => bytes + entry.json.length, 0),
      finishedAt: Math.round(log.finishedAt ?? now()),
      expireMs: deps.expireMs,
      lease,
      messagesTaken: 0,
    },
    added.flatMap((entry) => [entry.json, '']),
  );
  return outcome === 'ok' ? { record, log, from } : undefined;
}

/**
 * The events that end a run cut off mid-way: its waiting approvals are denied, its open tool calls fail,
 * then the run ends — after its `run.started`, when it had not written even that (docs/protocol.md §1.2).
 */
function closingEvents(record: RunRecord, log: EventLog, now: number, ending: RunEnding): RunEventInput[] {
  const why = ending.event === 'run.failed' ? ending.error : 'The run was cancelled.';
  const open = new Map<string, RunEventOf<'tool.started'>>();
  const waiting = new Map<string, RunEventOf<'tool.approval_required'>>();
  for (const { event } of log.entries) {
    if (event.event === 'tool.started') open.set(event.tool_call_id, event);
    else if (event.event === 'tool.completed') open.delete(event.tool_call_id);
    else if (event.event === 'tool.approval_required') waiting.set(event.approval_id, event);
    else if (event.event === 'tool.approval_resolved') waiting.delete(event.approval_id);
  }
  const denied: RunEventInput[] = [...waiting.values()].map((required) => ({
    event: 'tool.approval_resolved',
    approval_id: required.approval_id,
    tool: required.tool,
    tool_call_id: required.tool_call_id,
    decision: 'deny',
    reason: why,
    by: 'cancel',
    arguments: required.arguments,
    edited: false,
    turn: required.turn,
    call_index: required.call_index,
  }));
  const failed: RunEventInput[] = [...open.values()].map((started) => ({
    event: 'tool.completed',
    tool: started.tool,
    tool_call_id: started.tool_call_id,
    duration: Math.max(0, Math.round(now - started.timestamp * 1000)) / 1000,
    error: true,
    error_message: why,
    output: why,
    reward: null,
    finished: false,
    turn: started.turn,
    call_index: started.call_index,
  }));
  const started: RunEventInput[] =
    log.length === 0 ? [{ event: 'run.started', env: record.env, task: record.task, model: record.model }] : [];
  return [...started, ...denied, ...failed, ending];
}
