import { randomBytes } from 'node:crypto';
import { customAlphabet } from 'nanoid';
import { CapacityError, ConflictError, DrainingError, NotFoundError } from '../errors.js';
import type { ModelRegistry } from '../models/model-registry.js';
import type { OrsClient } from '../ors/client/ors-client.js';
import { isFinishedStatus } from '../protocol/run-status.js';
import { EnvCatalog } from '../runs/env-catalog.js';
import { requestHasher } from '../runs/request-hasher.js';
import { newRunId, type RunRegistry } from '../runs/run-registry.js';
import type { BridgeMetrics } from '../telemetry/bridge-metrics.js';
import type { Logger } from '../telemetry/logger.js';
import { cancelOpenPairs, submitPair } from './pair-runs.js';
import { PairSettler } from './pair-settler.js';
import { resolveRolloutTasks } from './resolve-rollout-tasks.js';
import { pairCount, type RolloutBatchRecord } from './rollout-batch-record.js';
import type { NamedBatch, RolloutBatchStore, StoreBudget, StoredBatch } from './rollout-batch-store.js';
import { type RolloutRequest, rolloutSettingsOf } from './rollout-request.js';
import { parseRolloutSettings, RolloutSettingsSchema, withSamplesTemperature } from './rollout-settings.js';
import { type RolloutSnapshot, snapshotOfBatch } from './rollout-snapshot-of.js';

export interface RolloutServiceOptions {
  registry: RunRegistry;
  ors: OrsClient;
  /** What the batches' environments and tasks are checked against: the bridge's, shared with its runs; default one of the service's own. */
  catalog?: EnvCatalog;
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

/** The 429 for a batch whose own record does not fit in the stored bytes (`RolloutBatchStore.create`). */
function storeFullError(budget: StoreBudget): CapacityError {
  const setting = budget === 'key_store_full' ? 'RUNBRIDGE_MAX_STORED_BYTES_PER_KEY' : 'RUNBRIDGE_MAX_STORED_BYTES';
  return new CapacityError(
    `Stored runs and batch records hold the bytes ${setting} allows, and none of this key's ended batches is left to forget; delete finished runs or batches, or retry once some are forgotten.`,
    5,
    budget,
  );
}

/** What {@link RolloutService.create} answers: the batch, its status now, and whether this call made it. */
export interface CreatedBatch {
  batch: RolloutBatchRecord;
  snapshot: RolloutSnapshot;
  created: boolean;
}

/**
 * Rollout batches as a service (docs/rollouts.md, "The service"), as the routes see them: a batch is a
 * record in the store, and each of its (task, sample) pairs a run on the runs' own queue, under the same
 * quotas, on whichever instance takes it. Creates, reads, lists, cancels and forgets batches; its
 * {@link PairSettler} (`settler`) records each pair as its run ends.
 */
export class RolloutService {
  readonly #o: RolloutServiceOptions;
  readonly #now: () => number;
  readonly #store: RolloutBatchStore;
  readonly #hash: (body: RolloutRequest) => string;
  /** Settles the batches' pairs as their runs end, and sweeps what an instance's death cut short. */
  readonly settler: PairSettler;
  readonly #catalog: EnvCatalog;

  constructor(options: RolloutServiceOptions) {
    this.#o = options;
    this.#catalog = options.catalog ?? new EnvCatalog(options.ors);
    this.#now = options.now ?? Date.now;
    this.#store = options.store;
    const hash = requestHasher(options.secret ?? randomBytes(32));
    // Told apart from a run request with the same fields: a key is the caller's to reuse across both.
    this.#hash = (body) => hash({ rollout: body });
    this.settler = new PairSettler({
      registry: options.registry,
      ors: options.ors,
      store: options.store,
      retentionMs: options.retentionMs,
      sweepMs: options.sweepMs,
      now: this.#now,
      log: options.log,
      ...(options.metrics === undefined ? {} : { metrics: options.metrics }),
    });
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
    const { split, indices } = await resolveRolloutTasks(this.#catalog, this.#o.ors, settings, undefined, {
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
    const runs = Array.from({ length: total }, () => newRunId());
    const creation = await this.#store.create(batch, runs, idempotency);
    if (creation.kind === 'full') throw storeFullError(creation.budget);
    // Bound meanwhile by a request of the same key that came first.
    if (creation.kind !== 'created') return this.#named(creation);
    try {
      for (const n of runs.keys()) await submitPair(this.#o.registry, batch, n, runs[n]!, 1);
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
    await cancelOpenPairs(this.#o.registry, this.#store, stored.record);
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

  /** Stops settling pairs; resolves once a sweep under way has ended. */
  stop(): Promise<void> {
    return this.settler.stop();
  }

  /** Takes back a batch whose pairs could not all be submitted: it is cancelled, its runs cancelled and all forgotten. */
  async #withdraw(batch: RolloutBatchRecord, runs: readonly string[]): Promise<void> {
    await this.#store.cancel(batch.id, this.#now());
    await cancelOpenPairs(this.#o.registry, this.#store, batch);
    await this.#store.forget(batch.id);
    await Promise.all(runs.map((run) => this.#o.registry.delete(run, batch.owner).catch(() => undefined)));
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
