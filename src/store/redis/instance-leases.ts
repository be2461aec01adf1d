import type { ErrorCode } from '../../protocol/error-codes.js';
import type { RunEventInput, RunEventOf } from '../../protocol/run-events.js';
import type { EventLog } from '../../runs/event-log.js';
import { newRunLog, type RunRecord } from '../../runs/run-record.js';
import { listItemOf } from '../../runs/snapshot-of.js';
import type { Logger } from '../../telemetry/logger.js';
import { runLogFields } from '../../telemetry/run-log-fields.js';
import type { RedisConnection } from './redis-connection.js';
import type { RedisKeys } from './redis-keys.js';
import { appendEntries } from './run-mirrors.js';
import type { StreamEntry } from './stream-follower.js';

export interface InstanceLeasesOptions {
  connection: RedisConnection;
  keys: RedisKeys;
  instance: string;
  /** `RUNBRIDGE_LEASE_SECONDS`: how long an instance's runs outlive its last renewal. */
  leaseMs: number;
  /** How long a finished run's keys live. */
  expireMs: number;
  now: () => number;
  log: Logger;
  /** Called after each renewal: the lease holds, so what the instance executes can be checked against the store. */
  onRenewed?: () => Promise<void>;
  /** Called for each run this instance ended for a lost instance, with the seq of its first closing event. */
  onEnded?: (record: RunRecord, log: EventLog, from: number) => void;
}

const LOST_MESSAGE =
  'The instance running this run stopped answering (it crashed or lost Redis for longer than RUNBRIDGE_LEASE_SECONDS), ' +
  'so the run was ended; start it again.';

/**
 * Leases (docs/protocol.md §8): each instance holds one lease key, renewed three times per lease period,
 * that stands for every run it executes. Every instance looks, on each sweep, for runs whose
 * holder's lease is gone: a run that had written nothing goes back to the queue, to be started
 * elsewhere; any other is ended with `run.failed`, code `instance_lost` (after a `tool.completed`
 * with `error: true` for each tool call it left open), so every subscriber on every instance gets
 * its terminal event. The appends are fenced on the holder and on its lease being gone, so of all
 * the instances that see the loss, one ends the run, once.
 */
export class InstanceLeases {
  readonly #o: InstanceLeasesOptions;
  readonly #timer: NodeJS.Timeout;
  /** No one is judged lost before this: after an outage every instance first gets to renew. */
  #graceUntil: number;
  /** When the lease was last renewed (a renewal later than the lease period means it lapsed meanwhile). */
  #renewedAt: number;

  constructor(options: InstanceLeasesOptions) {
    this.#o = options;
    this.#graceUntil = options.now() + options.leaseMs;
    this.#renewedAt = options.now();
    this.#timer = setInterval(() => void this.renew().catch(() => undefined), Math.max(50, options.leaseMs / 3));
    this.#timer.unref();
    options.connection.onStateChange((up) => {
      if (!up) return;
      this.#graceUntil = this.#o.now() + this.#o.leaseMs;
      void this.renew().catch(() => undefined);
    });
  }

  /** Renews this instance's lease, then lets the store check its runs (`onRenewed`). */
  async renew(): Promise<void> {
    const { connection, keys, instance, leaseMs } = this.#o;
    await connection.run(() => connection.command.set(keys.lease(instance), '1', 'PX', leaseMs));
    const renewedAt = this.#o.now();
    if (renewedAt - this.#renewedAt > leaseMs) {
      this.#o.log.warn(
        { instance, lapsed_ms: renewedAt - this.#renewedAt },
        `the lease of instance ${instance} lapsed (Redis could not be reached in time): other instances may have ended its runs with instance_lost`,
      );
    }
    this.#renewedAt = renewedAt;
    await this.#o.onRenewed?.();
  }

  /** Ends (or puts back in the queue) the runs of instances whose lease is gone; returns how many. */
  async endLostRuns(): Promise<number> {
    const { connection, keys, instance, now } = this.#o;
    if (now() < this.#graceUntil) return 0;
    const running = await connection.run(() => connection.command.hgetall(keys.fixed('running')));
    const byHolder = new Map<string, string[]>();
    for (const [id, holder] of Object.entries(running)) {
      if (holder === instance) continue;
      byHolder.set(holder, [...(byHolder.get(holder) ?? []), id]);
    }
    let ended = 0;
    for (const [holder, ids] of byHolder) {
      const alive = await connection.run(() => connection.command.exists(keys.lease(holder)));
      if (alive) continue;
      for (const id of ids) if (await this.#endLost(id, holder)) ended++;
    }
    return ended;
  }

  /** Gives up this instance's lease (at shutdown, once its runs have ended). */
  async release(): Promise<void> {
    clearInterval(this.#timer);
    const { connection, keys, instance } = this.#o;
    await connection.run(() => connection.command.del(keys.lease(instance))).catch(() => undefined);
  }

  async #endLost(id: string, holder: string): Promise<boolean> {
    const { connection, keys } = this.#o;
    const [recordJson, lastSeq] = await connection.run(() =>
      connection.command.hmget(keys.run(id), 'record', 'last_seq'),
    );
    if (recordJson === null || recordJson === undefined) return false;
    if (Number(lastSeq) === -1) {
      const requeued = await connection.script('rbRequeue', keys.prefix, { id, holder, lease: keys.lease(holder) });
      if (requeued === 1) {
        this.#o.log.warn(
          { run_id: id, instance: holder },
          `run ${id} had not started on lost instance ${holder}; it is queued again.`,
        );
      }
      return requeued === 1;
    }

    const record = JSON.parse(recordJson) as RunRecord;
    const log = newRunLog(record, { maxEvents: Number.POSITIVE_INFINITY, now: this.#o.now });
    const entries = (await connection.run(() => connection.command.xrange(keys.log(id), '-', '+'))) as StreamEntry[];
    appendEntries(log, entries);
    if (log.terminal) return false;
    const first = log.length;
    for (const input of closingEvents(log, this.#o.now())) log.append(input);
    const added = log.entries.slice(first);
    const outcome = await connection.script(
      'rbAppend',
      keys.prefix,
      {
        id,
        holder,
        first,
        count: added.length,
        snapshot: JSON.stringify(listItemOf(record, log)),
        bytes: added.reduce((bytes, entry) => bytes + entry.json.length, 0),
        finishedAt: Math.round(log.finishedAt ?? this.#o.now()),
        expireMs: this.#o.expireMs,
        lease: keys.lease(holder),
        messagesTaken: 0,
      },
      added.flatMap((entry) => [entry.json, '']),
    );
    if (outcome !== 'ok') return false;
    this.#o.log.warn(
      { ...runLogFields(record), instance: holder, code: 'instance_lost' },
      `run ${id} was ended with instance_lost: instance ${holder} is gone.`,
    );
    this.#o.onEnded?.(record, log, first);
    return true;
  }
}

/** The events that end a run cut off mid-way: its open tool calls fail, then the run does. */
function closingEvents(log: EventLog, now: number): RunEventInput[] {
  const open = new Map<string, RunEventOf<'tool.started'>>();
  for (const { event } of log.entries) {
    if (event.event === 'tool.started') open.set(event.tool_call_id, event);
    else if (event.event === 'tool.completed') open.delete(event.tool_call_id);
  }
  const closing: RunEventInput[] = [...open.values()].map((started) => ({
    event: 'tool.completed',
    tool: started.tool,
    tool_call_id: started.tool_call_id,
    duration: Math.max(0, Math.round(now - started.timestamp * 1000)) / 1000,
    error: true,
    error_message: LOST_MESSAGE,
    output: LOST_MESSAGE,
    reward: null,
    finished: false,
    turn: started.turn,
    call_index: started.call_index,
  }));
  closing.push({ event: 'run.failed', error: LOST_MESSAGE, code: 'instance_lost' satisfies ErrorCode });
  return closing;
}
