import type { EndedRun } from '../../runs/run-streams.js';
import type { Logger } from '../../telemetry/logger.js';
import { runLogFields } from '../../telemetry/run-log-fields.js';
import { endStoredRun, type RunEnding } from './end-stored-run.js';
import type { RedisConnection } from './redis-connection.js';
import type { RedisKeys } from './redis-keys.js';

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
  /** True while this instance executes run `id` (it writes the run's log). */
  executes: (id: string) => boolean;
  /** Called for each run this instance ended because no live instance executed it. */
  onEnded?: (ended: EndedRun) => void;
}

const LOST: RunEnding = {
  event: 'run.failed',
  code: 'instance_lost',
  error:
    'The instance running this run stopped answering (it crashed or lost Redis for longer than RUNBRIDGE_LEASE_SECONDS), ' +
    'so the run was ended; start it again.',
};

const STRANDED: RunEnding = {
  event: 'run.failed',
  code: 'instance_lost',
  error:
    'The instance holding this run no longer executed it (it had stopped writing it while Redis stalled), ' +
    'so the run was ended; start it again.',
};

/**
 * Leases (docs/protocol.md §8.2): each instance holds one lease key, renewed three times per lease period,
 * that stands for every run it executes. Every instance looks, on each sweep, for runs no live
 * instance executes: those whose holder's lease is gone, and those it holds itself but does not
 * execute (seen so at two sweeps in a row, so a run it is just starting is not taken for one). A run
 * that had written nothing goes back to the queue, to be started elsewhere; any other is ended with
 * `run.failed`, code `instance_lost` (after closing what it left open, see {@link endStoredRun}), so
 * every subscriber on every instance gets its terminal event. The appends are fenced on the holder
 * and on its lease being gone, so of all the instances that see the loss, one ends the run, once.
 */
export class InstanceLeases {
  readonly #o: InstanceLeasesOptions;
  readonly #timer: NodeJS.Timeout;
  /** No one is judged lost before this: after an outage every instance first gets to renew. */
  #graceUntil: number;
  /** When the lease was last renewed (a renewal later than the lease period means it lapsed meanwhile). */
  #renewedAt: number;
  /** Runs this instance holds but did not execute at the last sweep. */
  #unexecuted = new Set<string>();

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
      // Redis stalled for every instance alike, most likely: each first gets a lease period to renew.
      this.#graceUntil = renewedAt + leaseMs;
      this.#o.log.warn(
        { instance, lapsed_ms: renewedAt - this.#renewedAt },
        `the lease of instance ${instance} lapsed (Redis could not be reached in time): other instances may have ended its runs with instance_lost`,
      );
    }
    this.#renewedAt = renewedAt;
    await this.#o.onRenewed?.();
  }

  /**
   * Ends (or puts back in the queue) the runs no live instance executes — those of instances whose lease
   * is gone, and those this one holds but no longer executes; returns how many.
   */
  async endLostRuns(): Promise<number> {
    const { connection, keys, instance, now, leaseMs } = this.#o;
    const running = await connection.run(() => connection.command.hgetall(keys.fixed('running')));
    const byHolder = new Map<string, string[]>();
    for (const [id, holder] of Object.entries(running)) byHolder.set(holder, [...(byHolder.get(holder) ?? []), id]);
    let ended = await this.#endUnexecuted(byHolder.get(instance) ?? []);
    byHolder.delete(instance);
    // This instance's own view is as old as its last renewal: it judges no one while it could not renew.
    if (now() < this.#graceUntil || now() - this.#renewedAt > leaseMs) return ended;
    for (const [holder, ids] of byHolder) {
      const alive = await connection.run(() => connection.command.exists(keys.lease(holder)));
      if (alive) continue;
      for (const id of ids) if (await this.#endLost(id, holder, keys.lease(holder))) ended++;
    }
    return ended;
  }

  /** Gives up this instance's lease (at shutdown, once its runs have ended). */
  async release(): Promise<void> {
    clearInterval(this.#timer);
    const { connection, keys, instance } = this.#o;
    await connection.run(() => connection.command.del(keys.lease(instance))).catch(() => undefined);
  }

  /** Ends the runs of `ids` (this instance's) that it did not execute at this sweep nor at the last one. */
  async #endUnexecuted(ids: readonly string[]): Promise<number> {
    const unexecuted = new Set(ids.filter((id) => !this.#o.executes(id)));
    const seenBefore = this.#unexecuted;
    this.#unexecuted = unexecuted;
    let ended = 0;
    for (const id of unexecuted) {
      if (seenBefore.has(id) && (await this.#endLost(id, this.#o.instance, ''))) ended++;
    }
    return ended;
  }

  /**
   * Ends run `id` of `holder`, which no longer executes it (`lease`: its lease, gone; '' for this
   * instance's own), or queues it again when it had written nothing.
   */
  async #endLost(id: string, holder: string, lease: string): Promise<boolean> {
    const { connection, keys, instance } = this.#o;
    const lastSeq = await connection.run(() => connection.command.hget(keys.run(id), 'last_seq'));
    if (lastSeq === null) return false;
    if (Number(lastSeq) === -1) {
      const requeued = await connection.script('rbRequeue', keys.prefix, { id, holder, lease });
      if (requeued === 1) {
        this.#o.log.warn(
          { run_id: id, instance: holder },
          `run ${id} had not started on ${holder === instance ? 'this instance, which no longer executes it' : `lost instance ${holder}`}; it is queued again.`,
        );
      }
      return requeued === 1;
    }
    const own = holder === instance;
    const ended = await endStoredRun(this.#o, id, holder, own ? STRANDED : LOST, lease);
    if (ended === undefined) return false;
    this.#o.log.warn(
      { ...runLogFields(ended.record), instance: holder, code: 'instance_lost' },
      own
        ? `run ${id} was ended with instance_lost: this instance held it but no longer executed it.`
        : `run ${id} was ended with instance_lost: instance ${holder} is gone.`,
    );
    this.#o.onEnded?.(ended);
    return true;
  }
}
