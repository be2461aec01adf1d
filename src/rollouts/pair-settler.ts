import type { OrsClient } from '../ors/client/ors-client.js';
import { isFinishedStatus } from '../protocol/run-status.js';
import { foldEpisode } from '../runs/episode-fold.js';
import type { EventLog } from '../runs/event-log.js';
import type { RunRecord } from '../runs/run-record.js';
import { newRunId, type RunRegistry } from '../runs/run-registry.js';
import type { BridgeMetrics } from '../telemetry/bridge-metrics.js';
import type { Logger } from '../telemetry/logger.js';
import { cancelOpenPairs, submitPair } from './pair-runs.js';
import { retryAfterFailure } from './retry-after-failure.js';
import { pairOfBatch, type RolloutBatchRecord } from './rollout-batch-record.js';
import type { PairState, RolloutBatchStore, StoredBatch } from './rollout-batch-store.js';
import { outcomeOf } from './rollout-stats.js';
import { toTrajectoryRecord } from './to-trajectory-record.js';

export interface PairSettlerOptions {
  registry: RunRegistry;
  ors: OrsClient;
  store: RolloutBatchStore;
  /** How long an ended batch is kept (`RUNBRIDGE_RETENTION_SECONDS`, as runs). */
  retentionMs: number;
  /** How often this instance settles pairs whose settling was cut short, and forgets batches past retention. */
  sweepMs: number;
  now: () => number;
  log: Logger;
  /** Counts the pairs this instance records (docs/operations.md#metrics). */
  metrics?: Pick<BridgeMetrics, 'rolloutRecord'>;
}

/**
 * Settles the pairs of rollout batches as their runs end (docs/rollouts.md, "The service"): when a pair's
 * run ends — where it ran, or where a lost instance's run was ended — its log folds into the trajectory
 * record `runbridge rollout` writes, which the store appends to the batch's log atomically with the pair's
 * done mark, so each pair is recorded once; a failed pair with retries left is played again as a new run
 * instead. A sweep settles the pairs whose settling an instance's death cut short.
 */
export class PairSettler {
  readonly #o: PairSettlerOptions;
  readonly #store: RolloutBatchStore;
  readonly #timer: NodeJS.Timeout;
  #sweeping: Promise<void> | undefined;
  /**
   * Open pairs whose run the last sweep did not find (`batch:pair:run:attempt`). One missing at two
   * sweeps in a row was never submitted — not merely about to be — and is played again.
   */
  #missing = new Set<string>();

  constructor(options: PairSettlerOptions) {
    this.#o = options;
    this.#store = options.store;
    options.registry.onRunEnd((record, log) => this.#ended(record, log));
    this.#timer = setInterval(() => void this.sweep(), options.sweepMs);
    this.#timer.unref();
  }

  /**
   * Settles the pairs whose run ended but whose settling never happened (the instance died between the
   * two), plays again those whose run was never submitted (the instance died, or the queue refused it,
   * between moving a pair to its next attempt and submitting it), and forgets batches past retention.
   * Runs every `sweepMs`; overlapping calls share one sweep.
   */
  sweep(): Promise<void> {
    this.#sweeping ??= this.#sweep()
      .catch((error) => this.#o.log.warn({ err: error }, 'rollout sweep failed'))
      .finally(() => {
        this.#sweeping = undefined;
      });
    return this.#sweeping;
  }

  /** Stops sweeping; resolves once a sweep under way has ended. */
  async stop(): Promise<void> {
    clearInterval(this.#timer);
    await this.#sweeping;
  }

  async #sweep(): Promise<void> {
    const { registry, now, retentionMs } = this.#o;
    await this.#store.sweep(now() - retentionMs);
    const missing = new Set<string>();
    for (const id of await this.#store.unfinished()) {
      const stored = await this.#store.get(id);
      if (stored === undefined) continue;
      const { record: batch } = stored;
      for (const [n, pair] of (await this.#store.pairs(id)).entries()) {
        if (pair.state !== 'open') continue;
        // Its status first: one read, where opening a run elsewhere follows its log.
        const status = await registry.statusOf(pair.run, batch.owner).then(
          (found) => found ?? 'missing',
          () => undefined,
        );
        if (status === 'missing') {
          const lost = `${id}:${n}:${pair.run}:${pair.attempt}`;
          if (this.#missing.has(lost)) await this.#resubmit(stored, n, pair);
          else missing.add(lost);
        } else if (status !== undefined && isFinishedStatus(status)) {
          const run = await registry.open(pair.run, batch.owner).catch(() => undefined);
          if (run?.log.terminal && run.record.rollout?.attempt === pair.attempt) await this.#ended(run.record, run.log);
        }
      }
    }
    this.#missing = missing;
  }

  /**
   * Plays again a pair whose current run was never submitted: the instance that moved it to that run
   * died (or was refused by the queue) before submitting it. Not a failure of the pair, so the same
   * attempt, on a new run: settled first, so of every instance that finds it, one submits; should the
   * first submitter only have been slow, its run's end is stale and not recorded. (Which earlier
   * attempts were lost with their instance went with the run never submitted: the new one counts none.)
   */
  async #resubmit(stored: StoredBatch, n: number, pair: PairState): Promise<void> {
    const { record: batch } = stored;
    if (stored.cancelledAt !== null) return;
    const next = newRunId();
    const settled = await this.#store.settle(
      batch.id,
      n,
      pair.run,
      pair.attempt,
      { kind: 'replace', next },
      this.#o.now(),
    );
    if (settled === 'retry') await submitPair(this.#o.registry, batch, n, next, pair.attempt);
  }

  /**
   * A run ended: when it plays a pair, its log folds into the pair's trajectory record, settled into the
   * batch; a failure with retries left (and the batch not cancelled) is played again as a new run — but
   * after an attempt lost with its instance only once (`retryAfterFailure`). The record's outcome
   * counts the pair's lost attempts, for the batch's `lost_attempts`.
   */
  async #ended(record: RunRecord, log: EventLog): Promise<void> {
    const pair = record.rollout;
    if (pair === undefined) return;
    const stored = await this.#store.get(pair.rollout_id);
    if (stored === undefined) return;
    const batch = stored.record;
    const episode = foldEpisode(log.entries);
    const planned = pairOfBatch(batch, pair.pair);
    const now = this.#o.now();
    const after = retryAfterFailure(episode.end, pair.attempt, batch.retries, pair.lost ?? 0);
    if (episode.end.status !== 'completed' && stored.cancelledAt === null && after.retry) {
      const next = newRunId();
      const settled = await this.#store.settle(
        batch.id,
        pair.pair,
        record.id,
        pair.attempt,
        { kind: 'retry', next },
        now,
      );
      if (settled === 'retry') {
        await submitPair(this.#o.registry, batch, pair.pair, next, pair.attempt + 1, after.lost);
      }
      return;
    }
    const trajectory = toTrajectoryRecord(episode, {
      rolloutId: record.id,
      rollout: planned,
      attempt: pair.attempt,
      split: batch.split,
      spec: await this.#spec(batch, planned.index),
      sampling: batch.sampling,
      rewardReduction: batch.reward_reduction,
      timeoutMs: batch.timeout_ms,
      batch: { id: batch.id, policyVersion: batch.policy_version },
    });
    const outcome = {
      ...outcomeOf(trajectory),
      startedAt: trajectory.timing.started_at,
      ...(after.lost > 0 ? { lost: after.lost } : {}),
    };
    const settled = await this.#store.settle(
      batch.id,
      pair.pair,
      record.id,
      pair.attempt,
      { kind: 'record', record: JSON.stringify(trajectory), outcome: JSON.stringify(outcome) },
      now,
    );
    if (settled === 'recorded') this.#o.metrics?.rolloutRecord(trajectory.status);
    // Stopped: the record did not fit in the stored bytes; its other pairs stop too.
    if (settled === 'refused') await cancelOpenPairs(this.#o.registry, this.#store, batch);
  }

  /** The task object as the ORS server lists it, as a local batch copies it into its records; null when it cannot be read. */
  async #spec(batch: RolloutBatchRecord, index: number): Promise<unknown> {
    try {
      const [spec] = await this.#o.ors.taskRange(batch.env, batch.split, { start: index, stop: index + 1 });
      return spec ?? null;
    } catch {
      return null;
    }
  }
}
