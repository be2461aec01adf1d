import { randomBytes } from 'node:crypto';
import { customAlphabet } from 'nanoid';
import { CapacityError, ConflictError, DrainingError, NotFoundError } from '../errors.js';
import type { ModelRegistry } from '../models/model-registry.js';
import type { OrsClient } from '../ors/client/ors-client.js';
import type { RunRequest } from '../protocol/run-request.js';
import { isFinishedStatus } from '../protocol/run-status.js';
import { foldEpisode } from '../runs/episode-fold.js';
import type { EventLog } from '../runs/event-log.js';
import { requestHasher } from '../runs/request-hasher.js';
import type { RunRecord } from '../runs/run-record.js';
import { newRunId, type RunRegistry } from '../runs/run-registry.js';
import type { BridgeMetrics } from '../telemetry/bridge-metrics.js';
import type { Logger } from '../telemetry/logger.js';
import { retryAfterFailure } from './retry-after-failure.js';
import { pairCount, pairOfBatch, planOfBatch, type RolloutBatchRecord } from './rollout-batch-record.js';
import type { NamedBatch, PairState, RolloutBatchStore, StoredBatch } from './rollout-batch-store.js';
import type { PlannedRollout } from './rollout-plan.js';
import { type RolloutRequest, rolloutSettingsOf } from './rollout-request.js';
import {
  parseRolloutSettings,
  RolloutSettingsSchema,
  resolveRolloutTasks,
  withSamplesTemperature,
} from './rollout-settings.js';
import { type RolloutSnapshot, snapshotOfBatch } from './rollout-snapshot-of.js';
import { outcomeOf } from './rollout-stats.js';
import { toTrajectoryRecord } from './to-trajectory-record.js';

export interface RolloutServiceOptions {
  registry: RunRegistry;
  ors: OrsClient;
  models: ModelRegistry;
  store: RolloutBatchStore;
  /** The secret every instance shares (idempotency hashes), as the runs' registry has it. */
  secret?: Buffer;
  /**
   * The most pairs a batch may have: the most runs the queue holds of one key (`RUNBRIDGE_MAX_QUEUED_RUNS`,
   * `RUNBRIDGE_MAX_QUEUED_PER_KEY`). A batch past it could never be queued whole.
   */
  maxPairs: number;
  /** How long an ended batch is kept (`RUNBRIDGE_RETENTION_SECONDS`, as runs). */
  retentionMs: number;
  /** How often this instance settles pairs whose settling was cut short, and forgets batches past retention. */
  sweepMs: number;
  now?: () => number;
  log: Logger;
  /** Counts the pairs this instance records (docs/operations.md#metrics). */
  metrics?: Pick<BridgeMetrics, 'rolloutRecord'>;
}

const newBatchId = customAlphabet('0123456789abcdefghijklmnopqrstuvwxyz', 20);

/** The 404 for a batch that is unknown, forgotten, or another key's (we do not say which). */
function batchNotFound(id: string): NotFoundError {
  return new NotFoundError(
    `No rollout batch "${id}" here: it never existed, was forgotten after its retention, or belongs to another key.`,
    'rollout_not_found',
  );
}

/** What {@link RolloutService.create} answers: the batch, its status now, and whether this call made it. */
export interface CreatedBatch {
  batch: RolloutBatchRecord;
  snapshot: RolloutSnapshot;
  created: boolean;
}

/**
 * Rollout batches as a service (docs/rollouts.md, "The service"): a batch is a record in the store, and
 * each of its (task, sample) pairs a run on the runs' own queue, under the same quotas, on whichever
 * instance takes it. When a pair's run ends — where it ran, or where a lost instance's run was ended —
 * its log folds into the trajectory record `runbridge rollout` writes, which the store appends to the
 * batch's log atomically with the pair's done mark, so each pair is recorded once; a failed pair with
 * retries left is played again as a new run instead. A sweep settles the pairs whose settling an
 * instance's death cut short.
 */
export class RolloutService {
  readonly #o: RolloutServiceOptions;
  readonly #now: () => number;
  readonly #store: RolloutBatchStore;
  readonly #hash: (body: RolloutRequest) => string;
  readonly #timer: NodeJS.Timeout;
  #sweeping: Promise<void> | undefined;
  /**
   * Open pairs whose run the last sweep did not find (`batch:pair:run:attempt`). One missing at two
   * sweeps in a row was never submitted — not merely about to be — and is played again.
   */
  #missing = new Set<string>();

  constructor(options: RolloutServiceOptions) {
    this.#o = options;
    this.#now = options.now ?? Date.now;
    this.#store = options.store;
    const hash = requestHasher(options.secret ?? randomBytes(32));
    // Told apart from a run request with the same fields: a key is the caller's to reuse across both.
    this.#hash = (body) => hash({ rollout: body });
    options.registry.onRunEnd((record, log) => this.#ended(record, log));
    this.#timer = setInterval(() => void this.sweep(), options.sweepMs);
    this.#timer.unref();
  }

  /**
   * Validates `request` as `runbridge rollout` validates its settings, then stores the batch and submits
   * its pairs to the queue. With an idempotency key `owner` already used: the same body answers that
   * batch (`created: false`), another is a 409. 404 for an unknown environment; 400 for an unknown split,
   * tasks out of range or a bad model; 429 when its pairs would not fit in the queue; 503 while draining.
   */
  async create(request: RolloutRequest, owner: string, idempotencyKey?: string): Promise<CreatedBatch> {
    if (this.#o.registry.draining) throw new DrainingError();
    const settings = parseRolloutSettings(
      RolloutSettingsSchema.transform(withSamplesTemperature),
      rolloutSettingsOf(request),
    );
    const idempotency = idempotencyKey === undefined ? undefined : { key: idempotencyKey, hash: this.#hash(request) };
    // A retry is answered before the queue is judged: the batch it names may be what fills the queue.
    const named = idempotency === undefined ? undefined : await this.#store.named(owner, idempotency);
    if (named !== undefined) return this.#named(named);
    const model = this.#o.models.resolve(request.model).id;
    const { split, indices } = await resolveRolloutTasks(this.#o.ors, settings, undefined, {
      tasks: Math.floor(this.#o.maxPairs / settings.samples),
      why: `${settings.samples} sample(s) each, within the ${this.#o.maxPairs} pairs the queue holds of one key: RUNBRIDGE_MAX_QUEUED_RUNS, RUNBRIDGE_MAX_QUEUED_PER_KEY`,
    });
    const batch: RolloutBatchRecord = {
      id: `ro_${newBatchId()}`,
      owner,
      env: settings.env,
      split,
      indices,
      samples: settings.samples,
      model,
      sampling: settings.sampling,
      seed: settings.seed,
      max_turns: settings.maxTurns,
      instructions: settings.instructions ?? null,
      reward_reduction: settings.rewardReduction,
      retries: settings.retries,
      timeout_ms: settings.timeoutMs,
      policy_version: request.policy_version ?? null,
      metadata: request.metadata ?? {},
      created_at: this.#now(),
    };
    const total = pairCount(batch);
    const room = await this.#o.registry.queueRoom(owner);
    if (total > room) {
      throw new CapacityError(
        `This batch has ${total} pairs (tasks × samples), but the queue takes ${room} more runs of yours now ` +
          '(RUNBRIDGE_MAX_QUEUED_RUNS, RUNBRIDGE_MAX_QUEUED_PER_KEY): post fewer tasks or samples per batch, or wait for the queue to drain.',
        this.#o.registry.retryAfterSeconds(),
        'queue_full',
      );
    }
    const plan = planOfBatch(batch);
    const runs = plan.map(() => newRunId());
    const creation = await this.#store.create(batch, runs, idempotency);
    // Bound meanwhile by a request of the same key that came first.
    if (creation.kind !== 'created') return this.#named(creation);
    try {
      for (const [n, pair] of plan.entries()) await this.#submit(batch, pair, n, runs[n]!, 1);
    } catch (error) {
      // All or nothing: a batch refused half-way (the queue filled meanwhile, or shutdown began) leaves nothing.
      await this.#withdraw(batch, runs).catch((cause) =>
        this.#o.log.error({ err: cause, batch_id: batch.id }, 'rollout batch could not be withdrawn'),
      );
      throw error;
    }
    const stored = await this.#store.get(batch.id);
    return { batch, snapshot: await this.#snapshot(stored!), created: true };
  }

  /** The answer to a request whose idempotency key names a batch: that batch, or a 409 when it was made from another body. */
  async #named(named: NamedBatch): Promise<CreatedBatch> {
    if (named.kind === 'conflict') {
      throw new ConflictError(
        'This Idempotency-Key was already used with a different rollout batch; use a new key for a new batch, or the same settings to resume it.',
        'idempotency_conflict',
      );
    }
    const stored = await this.#store.get(named.id);
    if (stored === undefined) throw batchNotFound(named.id);
    return { batch: stored.record, snapshot: await this.#snapshot(stored), created: false };
  }

  /** The batch `id` as `owner` may see it, else 404. */
  async open(id: string, owner: string): Promise<StoredBatch> {
    const stored = await this.#store.get(id);
    if (stored === undefined || stored.record.owner !== owner) throw batchNotFound(id);
    return stored;
  }

  /** The snapshot of `owner`'s batch `id`. */
  async snapshot(id: string, owner: string): Promise<RolloutSnapshot> {
    return this.#snapshot(await this.open(id, owner));
  }

  /** `owner`'s batches, newest first. */
  async list(
    owner: string,
    query: { limit: number; after?: string },
  ): Promise<{ data: RolloutSnapshot[]; next: string | null }> {
    const page = await this.#store.list(owner, query);
    return { data: await Promise.all(page.data.map((stored) => this.#snapshot(stored))), next: page.next };
  }

  /** Cancels `owner`'s batch: no pair is recorded from now on, and those not yet recorded are cancelled. Idempotent. */
  async cancel(id: string, owner: string): Promise<RolloutSnapshot> {
    const stored = await this.open(id, owner);
    if (stored.finishedAt === null) await this.#store.cancel(id, this.#now());
    await this.#cancelPairs(stored.record);
    return this.snapshot(id, owner);
  }

  /** Forgets `owner`'s ended batch, its records and its pairs' runs; 409 while it goes on. */
  async delete(id: string, owner: string): Promise<void> {
    const stored = await this.open(id, owner);
    if (stored.finishedAt === null) {
      throw new ConflictError(
        `Rollout batch "${id}" has not ended; cancel it first (POST /v1/rollouts/${id}/cancel), then delete it.`,
        'rollout_active',
      );
    }
    const pairs = await this.#store.pairs(id);
    await this.#store.forget(id);
    // Its runs go too; one still ending (cancelled a moment ago) stays until its retention.
    await Promise.all(pairs.map((pair) => this.#o.registry.delete(pair.run, owner).catch(() => undefined)));
  }

  /** Records of batch `id` after seq `after`, at most `max` (JSON, as the store holds them). */
  records(id: string, after: number, max: number): Promise<string[]> {
    return this.#store.records(id, after, max);
  }

  /** Resolves once batch `id` may have changed, or after `ms`, or when `signal` aborts. */
  changed(id: string, ms: number, signal: AbortSignal): Promise<void> {
    return this.#store.changed(id, ms, signal);
  }

  /** The batch `id` as stored now (no owner check: the caller opened it before). */
  current(id: string): Promise<StoredBatch | undefined> {
    return this.#store.get(id);
  }

  /**
   * Settles the pairs whose run ended but whose settling never happened (the instance died between the
   * two), plays again those whose run was never submitted (the instance died, or the queue refused it,
   * between moving a pair to its next attempt and submitting it), and forgets batches past retention. Runs every `sweepMs`; overlapping calls share one sweep.
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
    await this.#store.sweep(this.#now() - this.#o.retentionMs);
    const missing = new Set<string>();
    for (const id of await this.#store.unfinished()) {
      const stored = await this.#store.get(id);
      if (stored === undefined) continue;
      const { record: batch } = stored;
      for (const [n, pair] of (await this.#store.pairs(id)).entries()) {
        if (pair.state !== 'open') continue;
        // Its status first: one read, where opening a run elsewhere follows its log.
        const status = await this.#o.registry.statusOf(pair.run, batch.owner).then(
          (found) => found ?? 'missing',
          () => undefined,
        );
        if (status === 'missing') {
          const lost = `${id}:${n}:${pair.run}:${pair.attempt}`;
          if (this.#missing.has(lost)) await this.#resubmit(stored, n, pair);
          else missing.add(lost);
        } else if (status !== undefined && isFinishedStatus(status)) {
          const run = await this.#o.registry.open(pair.run, batch.owner).catch(() => undefined);
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
      this.#now(),
    );
    if (settled === 'retry') await this.#submit(batch, pairOfBatch(batch, n), n, next, pair.attempt);
  }

  /** Submits pair `n` of `batch` as run `id`, attempt `attempt`, after `lost` attempts lost with their instance. */
  async #submit(
    batch: RolloutBatchRecord,
    pair: PlannedRollout,
    n: number,
    id: string,
    attempt: number,
    lost = 0,
  ): Promise<void> {
    const request: RunRequest = {
      env: batch.env,
      task: { split: batch.split, index: pair.index },
      model: batch.model,
      max_turns: batch.max_turns,
      sampling: { ...batch.sampling, seed: pair.seed },
      reward_reduction: batch.reward_reduction,
      await_input: false,
      ...(batch.instructions === null ? {} : { instructions: batch.instructions }),
      metadata: { rollout_id: batch.id, group_id: pair.groupId, sample_index: pair.sample, attempt },
    };
    await this.#o.registry.createPair(id, request, batch.owner, {
      rollout_id: batch.id,
      pair: n,
      task_index: pair.index,
      sample_index: pair.sample,
      seed: pair.seed,
      attempt,
      ...(lost > 0 ? { lost } : {}),
      timeout_ms: batch.timeout_ms,
    });
  }

  /** Takes back a batch whose pairs could not all be submitted: it is cancelled, its runs cancelled and all forgotten. */
  async #withdraw(batch: RolloutBatchRecord, runs: readonly string[]): Promise<void> {
    await this.#store.cancel(batch.id, this.#now());
    await this.#cancelPairs(batch);
    await this.#store.forget(batch.id);
    await Promise.all(runs.map((run) => this.#o.registry.delete(run, batch.owner).catch(() => undefined)));
  }

  async #cancelPairs(batch: RolloutBatchRecord): Promise<void> {
    const pairs = await this.#store.pairs(batch.id);
    await Promise.all(
      pairs
        .filter((pair) => pair.state === 'open')
        .map((pair) => this.#o.registry.cancelPair(pair.run, batch.owner).catch(() => undefined)),
    );
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
    const now = this.#now();
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
      if (settled === 'retry') await this.#submit(batch, planned, pair.pair, next, pair.attempt + 1, after.lost);
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
    if (settled === 'refused') await this.#cancelPairs(batch);
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

  async #snapshot(stored: StoredBatch): Promise<RolloutSnapshot> {
    const { record } = stored;
    const [outcomes, pairs] = await Promise.all([this.#store.outcomes(record.id), this.#store.pairs(record.id)]);
    let running = 0;
    if (stored.finishedAt === null) {
      const open = pairs.filter((pair) => pair.state === 'open');
      const statuses = await Promise.all(
        open.map((pair) => this.#o.registry.statusOf(pair.run, record.owner).catch(() => undefined)),
      );
      running = statuses.filter(
        (status) => status !== undefined && status !== 'queued' && !isFinishedStatus(status),
      ).length;
    }
    return snapshotOfBatch(stored, outcomes, pairs, running);
  }
}
