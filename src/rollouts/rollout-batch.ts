import { customAlphabet } from 'nanoid';
import type { Model } from '../models/model.js';
import type { EpisodeCaps } from '../protocol/episode-caps.js';
import { RunEventFactory } from '../protocol/event-factory.js';
import type { RewardReduction, Sampling } from '../protocol/run-request.js';
import { EpisodeFold } from '../runs/episode-fold.js';
import type { EpisodeRecord } from '../runs/episode-record.js';
import { RunCancelledError } from '../runs/run-cancelled-error.js';
import type { EpisodePlayer } from './play-rollout-episode.js';
import { retryAfterFailure } from './retry-after-failure.js';
import type { PlannedRollout } from './rollout-plan.js';
import type { RolloutStore } from './rollout-store.js';
import { toTrajectoryRecord } from './to-trajectory-record.js';
import type { TrajectoryRecord } from './trajectory-schema.js';
import { RolloutWorkerExitedError } from './workers/rollout-worker-exited-error.js';

/** Live counts of a batch, handed to progress callbacks. Counts are of this batch unless said otherwise. */
export interface RolloutProgress {
  /** (task, sample) pairs in the plan. */
  planned: number;
  /** Pairs the file already held a record of, not run again. */
  skipped: number;
  /** Episodes that completed and were written. */
  completed: number;
  /** Episodes written as failed (after their retries). */
  failed: number;
  /** Episodes in flight. */
  running: number;
  /** Failed attempts put back in the queue to run again. */
  retried: number;
  /**
   * Attempts lost with the worker thread playing them: each such episode is played again once, then
   * written as failed.
   */
  lost: number;
  /** Episodes cancelled in flight by an interruption (not written). */
  cancelled: number;
  /** Mean reward of `completed` (an unscored episode counts as 0); null before the first. */
  meanReward: number | null;
  /** Epoch ms at which the batch started. */
  startedAt: number;
}

/**
 * The progress of a batch before any episode of it has ended: `planned` pairs, `skipped` of them
 * recorded already, `running` in flight (a batch played elsewhere may have some by the time it is read).
 */
export function startingProgress(planned: number, skipped: number, startedAt: number, running = 0): RolloutProgress {
  return {
    planned,
    skipped,
    completed: 0,
    failed: 0,
    running,
    retried: 0,
    lost: 0,
    cancelled: 0,
    meanReward: null,
    startedAt,
  };
}

/** Everything a batch needs; `generateRollouts` builds it. */
export interface RolloutBatchOptions {
  /** Plays one episode, here or in a worker thread. */
  play: EpisodePlayer;
  /** The batch's model (its id goes into the record of an episode lost with its worker). */
  model: Model;
  env: string;
  split: string;
  sampling: Omit<Sampling, 'seed'>;
  maxTurns: number;
  /** What one turn and one tool result may put into an episode; unset caps take their defaults. */
  caps: Partial<EpisodeCaps> | undefined;
  instructions: string | undefined;
  rewardReduction: RewardReduction;
  retries: number;
  timeoutMs: number;
  /** Which weights play the batch; each record carries it. */
  policyVersion?: string;
  concurrency: number;
  /** The pairs to play, in order. */
  pending: PlannedRollout[];
  /** Task objects by index (null where unknown), copied into each record. */
  specs: ReadonlyMap<number, unknown>;
  store: RolloutStore;
  progress: RolloutProgress;
  /** Aborting it cancels the episodes in flight (their sessions are deleted) and starts no more. */
  signal: AbortSignal | undefined;
  onProgress: ((progress: RolloutProgress) => void) | undefined;
  /** Called after each record is appended to the file. */
  onRecord: (record: TrajectoryRecord) => void;
  now: () => number;
}

interface Job {
  rollout: PlannedRollout;
  attempt: number;
  /** Earlier attempts lost with their worker thread. */
  lost: number;
}

const newRolloutId = customAlphabet('0123456789abcdefghijklmnopqrstuvwxyz', 20);

/**
 * Plays the pending (task, sample) pairs with at most `concurrency` episodes at once, each through
 * `runEpisode` under its own time limit, writing one record per finished episode. A failed episode
 * goes back to the end of the queue while it has retries left, then is written as failed — one lost
 * with its worker thread only once (`retryAfterFailure`): what killed the thread may be the episode
 * itself; it never stops the batch. Only a fault of the batch itself (the file cannot be written, a callback throws)
 * does: the episodes in flight are cancelled and the fault is thrown once every one has ended.
 */
export class RolloutBatch {
  readonly #o: RolloutBatchOptions;
  readonly #queue: Job[];
  readonly #fault = new AbortController();
  readonly #stop: AbortSignal;
  /** The controllers of the episodes in flight; one listener on `#stop` cancels them all. */
  readonly #inFlight = new Set<AbortController>();
  #head = 0;
  #rewardSum = 0;

  /** Queues every pending pair; nothing runs before {@link RolloutBatch.run}. */
  constructor(options: RolloutBatchOptions) {
    this.#o = options;
    this.#queue = options.pending.map((rollout) => ({ rollout, attempt: 1, lost: 0 }));
    this.#stop = options.signal ? AbortSignal.any([options.signal, this.#fault.signal]) : this.#fault.signal;
    this.#stop.addEventListener(
      'abort',
      () => {
        for (const controller of this.#inFlight) controller.abort(new RunCancelledError('client'));
      },
      { once: true },
    );
  }

  /** Resolves when every pair has a record or the batch was interrupted, with every episode ended. */
  async run(): Promise<void> {
    const workers = Array.from({ length: Math.min(this.#o.concurrency, this.#queue.length) }, () => this.#work());
    await Promise.all(workers);
    if (this.#fault.signal.aborted) throw this.#fault.signal.reason;
  }

  async #work(): Promise<void> {
    while (!this.#stop.aborted && this.#head < this.#queue.length) {
      const job = this.#queue[this.#head++]!;
      try {
        await this.#play(job);
      } catch (error) {
        if (!this.#fault.signal.aborted) this.#fault.abort(error);
      }
    }
  }

  async #play(job: Job): Promise<void> {
    const o = this.#o;
    const progress = o.progress;
    const controller = new AbortController();
    this.#inFlight.add(controller);
    const limit = setTimeout(() => controller.abort(new RunCancelledError('timeout')), o.timeoutMs);
    progress.running++;
    this.#report();
    const rolloutId = `ro_${newRolloutId()}`;
    const episode = {
      rolloutId,
      env: o.env,
      split: o.split,
      index: job.rollout.index,
      sampling: { ...o.sampling, seed: job.rollout.seed },
      instructions: o.instructions,
      maxTurns: o.maxTurns,
      rewardReduction: o.rewardReduction,
      caps: o.caps,
    };
    let record: EpisodeRecord;
    try {
      record = await o.play(episode, controller.signal);
    } catch (error) {
      // A worker thread that died takes its episodes with it: each is a failed attempt, retried once.
      if (!(error instanceof RolloutWorkerExitedError)) throw error;
      record = lostRecord(
        rolloutId,
        episode.env,
        { split: o.split, index: job.rollout.index },
        o.model.id,
        error,
        o.now,
      );
    } finally {
      clearTimeout(limit);
      this.#inFlight.delete(controller);
      progress.running--;
    }

    if (record.end.status !== 'completed') {
      if (this.#stop.aborted) {
        // Cut short by the interruption, not by its own doing: it runs again on resume.
        progress.cancelled++;
        this.#report();
        return;
      }
      const after = retryAfterFailure(record.end, job.attempt, o.retries, job.lost);
      progress.lost += after.lost - job.lost;
      if (after.retry) {
        this.#queue.push({ rollout: job.rollout, attempt: job.attempt + 1, lost: after.lost });
        progress.retried++;
        this.#report();
        return;
      }
    }
    const trajectory = toTrajectoryRecord(record, {
      rolloutId,
      rollout: job.rollout,
      attempt: job.attempt,
      split: o.split,
      spec: o.specs.get(job.rollout.index) ?? null,
      sampling: o.sampling,
      rewardReduction: o.rewardReduction,
      timeoutMs: o.timeoutMs,
      ...(o.policyVersion === undefined ? {} : { policyVersion: o.policyVersion }),
    });
    o.store.append(trajectory);
    if (trajectory.status === 'completed') {
      progress.completed++;
      this.#rewardSum += trajectory.reward ?? 0;
      progress.meanReward = this.#rewardSum / progress.completed;
    } else {
      progress.failed++;
    }
    o.onRecord(trajectory);
    this.#report();
  }

  #report(): void {
    this.#o.onProgress?.({ ...this.#o.progress });
  }
}

/** The record of an episode whose worker thread died: it failed with the worker's error, having played nothing we know of. */
function lostRecord(
  rolloutId: string,
  env: string,
  task: { split: string; index: number },
  model: string,
  error: RolloutWorkerExitedError,
  now: () => number,
): EpisodeRecord {
  const events = new RunEventFactory(rolloutId, now);
  const fold = new EpisodeFold();
  fold.apply(events.build({ event: 'run.started', env, task, model }));
  fold.apply(events.build({ event: 'run.failed', error: error.message, code: error.code }));
  return fold.record();
}
