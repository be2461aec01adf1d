import { randomBytes } from 'node:crypto';
import { customAlphabet } from 'nanoid';
import { CapacityError, ConflictError, DrainingError, NotFoundError } from '../errors.js';
import type { ModelRegistry } from '../models/model-registry.js';
import type { OrsClient } from '../ors/client/ors-client.js';
import { CONFIRM_WAIT_SECONDS } from '../protocol/confirm-wait.js';
import type { CancelReason } from '../protocol/run-events.js';
import type { RunRequest } from '../protocol/run-request.js';
import type { RunListItem, RunSnapshot, RunStatus } from '../protocol/run-snapshot.js';
import { isFinishedStatus } from '../protocol/run-status.js';
import { noTelemetry } from '../telemetry/no-telemetry.js';
import type { Telemetry } from '../telemetry/telemetry.js';
import type { EnvCatalog } from './env-catalog.js';
import { outcomeOf } from './outcome-of.js';
import { PersonInTheLoop } from './person-in-the-loop.js';
import { type RequestHasher, requestHasher } from './request-hasher.js';
import type { RunEndListener } from './run-end-listener.js';
import type { RolloutPairRef, RunRecord } from './run-record.js';
import { RunRetention } from './run-retention.js';
import { RunScheduler, type SchedulerLimits } from './run-scheduler.js';
import type { OpenedRun, RunCounts, RunListQuery, RunPage, RunStore } from './run-store.js';
import type { RunStreams } from './run-streams.js';
import { StoreUnavailableError } from './store-unavailable-error.js';
import { TaskTracker } from './task-tracker.js';
import { waitForTerminalWithin } from './wait-for-terminal.js';
import { type WebhookSink, webhooksNotConfigured } from './webhook-sink.js';

export interface RunLimits extends SchedulerLimits {
  maxEventsPerRun: number;
}

export interface RunRegistryOptions {
  ors: OrsClient;
  models: ModelRegistry;
  /** Where runs live: their records, keys and queue. */
  store: RunStore;
  /** The live side of the same store: the runs' logs as they are written and followed, and their control messages. */
  streams: RunStreams;
  /** The ORS server's environments and tasks, checked before a run is accepted; it knows the default environment. */
  catalog: EnvCatalog;
  limits: RunLimits;
  /** How often retention and orphans are swept (`RUNBRIDGE_SWEEP_SECONDS`). */
  sweepMs: number;
  now?: () => number;
  /** Calls the runs' webhooks; without it a request with `webhook` is refused. */
  webhooks?: WebhookSink;
  /** Logs, metrics and traces of the runs (and where a background task's unexpected failure is reported); default none. */
  telemetry?: Telemetry;
  /** Snapshots link to their trace with this, `{trace_id}` standing for the run's (`RUNBRIDGE_TRACE_URL`). */
  traceUrl?: string;
  /**
   * The secret every instance shares, which keys the hashes idempotency keys are bound to (so a key
   * dedupes across instances, and a store's dump cannot be tested against guesses); default a random
   * one of this process.
   */
  secret?: Buffer;
  /**
   * The bridge's own secrets (API keys, provider keys, webhook secret, metrics token), cut out of
   * everything a run writes, whatever a model or environment says (docs/security.md).
   */
  bridgeSecrets?: readonly string[];
}

const runIdSuffix = customAlphabet('0123456789abcdefghijklmnopqrstuvwxyz', 24);

/** A new run id (`run_` and 24 characters): what the registry names runs, and a rollout batch its pairs' runs in advance. */
export function newRunId(): string {
  return `run_${runIdSuffix()}`;
}

/** The longest shutdown waits, after the last run ended, for the webhooks due meanwhile to be delivered. */
const WEBHOOK_FLUSH_MS = 10_000;

/** How long a cancel's request waits for the run to end, to answer how it ended (docs/api.md). */
const CONFIRM_WAIT_MS = CONFIRM_WAIT_SECONDS * 1000;

/** What `/health` counts: the runs the store counts, and the open event streams and waiting requests on this instance. */
export interface RunStats extends RunCounts {
  subscribers: number;
}

/** What {@link RunRegistry.create} answers: the run's record, its status now, and whether this call made it. */
export interface CreatedRun {
  record: RunRecord;
  status: RunStatus;
  created: boolean;
}

/** The 404 for a run that is unknown, forgotten, or another key's (we do not say which). */
function runNotFound(id: string): NotFoundError {
  return new NotFoundError(
    `No run "${id}" here: it never existed, was forgotten after its retention, or belongs to another key.`,
    'run_not_found',
  );
}

/**
 * Every run, as the routes see them: creates runs (validated, deduplicated by idempotency key,
 * started or queued), finds and lists them scoped to their owner, cancels and forgets them, and
 * drains on shutdown. It only wires the jobs together: the {@link RunStore} keeps runs, keys,
 * queue and quotas; the {@link RunScheduler} executes runs on this instance; {@link RunRetention}
 * sweeps; {@link PersonInTheLoop} (`person`) takes decisions and messages. Another owner's run is 404.
 */
export class RunRegistry {
  readonly #o: RunRegistryOptions;
  readonly #now: () => number;
  readonly #store: RunStore;
  readonly #streams: RunStreams;
  readonly #tasks: TaskTracker;
  readonly #scheduler: RunScheduler;
  readonly #retention: RunRetention;
  readonly #hashRequest: RequestHasher;
  readonly #telemetry: Telemetry;
  /** Decisions and messages of a person in the loop of these runs. */
  readonly person: PersonInTheLoop;
  #onEnd: RunEndListener | undefined;
  #draining = false;

  constructor(options: RunRegistryOptions) {
    this.#o = options;
    this.#now = options.now ?? Date.now;
    this.#store = options.store;
    this.#streams = options.streams;
    this.#hashRequest = requestHasher(options.secret ?? randomBytes(32));
    this.#telemetry = options.telemetry ?? noTelemetry;
    const log = this.#telemetry.logger;
    // A task cut short by the store going away is said once by the store's connection line, not by each task.
    this.#tasks = new TaskTracker((error) =>
      error instanceof StoreUnavailableError
        ? log.debug({ err: error }, 'background task stopped: the store is unavailable')
        : log.error({ err: error }, 'background task failed'),
    );
    this.#scheduler = new RunScheduler({
      ors: options.ors,
      models: options.models,
      store: this.#store,
      streams: this.#streams,
      limits: options.limits,
      tasks: this.#tasks,
      telemetry: this.#telemetry,
      now: this.#now,
      ...(options.bridgeSecrets === undefined ? {} : { bridgeSecrets: options.bridgeSecrets }),
      onStart: (record, log) => options.webhooks?.watch(record, log),
      onEnd: (record, log) => this.#onEnd?.(record, log),
    });
    // A run this instance ended for an executor that no longer ran it: its end is this instance's to tell.
    this.#streams.onEnded(({ record, log, from }) => {
      this.#telemetry.observeEnd(
        { id: record.id, env: record.env, model: record.model, trace: record.trace },
        outcomeOf(log),
      );
      options.webhooks?.deliverFrom(record, log, from);
      this.#tasks.track(Promise.resolve(this.#onEnd?.(record, log)));
    });
    this.person = new PersonInTheLoop({
      open: (id, owner) => this.open(id, owner),
      send: (id, message) => this.#streams.send(id, message),
      retryAfterSeconds: () => this.retryAfterSeconds(),
      now: this.#now,
    });
    this.#retention = new RunRetention({
      store: this.#store,
      cancelOrphan: (id) => this.#cancel(id, 'orphaned'),
      log,
      intervalMs: options.sweepMs,
    });
  }

  get draining(): boolean {
    return this.#draining;
  }

  /** Tells `listener` of every run that ends (see {@link RunEndListener}); one listener, set once at start-up. */
  onRunEnd(listener: RunEndListener): void {
    this.#onEnd = listener;
  }

  /** Seconds a caller refused for a bound that frees by itself should wait (`Retry-After`): one estimate for every such refusal. */
  retryAfterSeconds(): number {
    return this.#scheduler.retryAfterSeconds();
  }

  /** How many more runs of `owner` the queue takes now (see `RunStore.queueRoom`). */
  queueRoom(owner: string): Promise<number> {
    return this.#store.queueRoom(owner);
  }

  /**
   * Submits run `id` (named by the batch, see {@link newRunId}), playing one pair of a rollout batch: validated, started or queued like any run (the same
   * quotas count it), and marked with `rollout` so it is recorded into its batch when it ends. No
   * idempotency key: the batch has one.
   */
  async createPair(id: string, request: RunRequest, owner: string, rollout: RolloutPairRef): Promise<CreatedRun> {
    if (this.#draining) throw new DrainingError();
    return { ...(await this.#create(request, owner, undefined, { id, rollout })), created: true };
  }

  /**
   * Validates `request` and starts its run, or queues it when it may not start yet. With an
   * idempotency key already used by `owner`: the same body answers the existing run (`created:
   * false`; a duplicate that arrives while the run is being created waits for it), another body is
   * a 409. Throws 503 while draining, 404 for an unknown environment, 400 for a bad task or model,
   * 429 when the run may not wait (queue, the key's quota or the byte budgets full).
   */
  async create(request: RunRequest, owner: string, idempotencyKey?: string): Promise<CreatedRun> {
    if (this.#draining) throw new DrainingError();
    if (request.webhook !== undefined) await this.#checkWebhook(request.webhook);
    if (idempotencyKey === undefined) return { ...(await this.#create(request, owner)), created: true };

    const hash = this.#hashRequest(request);
    for (;;) {
      const claim = await this.#store.claimKey(owner, idempotencyKey, hash);
      if (claim.kind === 'claimed') break;
      if (claim.kind === 'conflict') {
        throw new ConflictError(
          'This Idempotency-Key was already used with a different body; use a new key for a new run.',
          'idempotency_conflict',
        );
      }
      if (claim.kind === 'pending') {
        await claim.settled;
        continue;
      }
      const existing = await this.#streams.join(claim.runId);
      // Forgotten between the two reads: the key is free again.
      if (!existing) continue;
      await this.#store.touch(existing.record.id);
      return { record: existing.record, status: existing.log.summary.status, created: false };
    }
    try {
      return { ...(await this.#create(request, owner, { key: idempotencyKey, hash })), created: true };
    } catch (error) {
      // No run holds the key, so a retry with it must be able to create one.
      await this.#store.releaseKey(owner, idempotencyKey).catch(() => undefined);
      throw error;
    }
  }

  async #checkWebhook(webhook: NonNullable<RunRequest['webhook']>): Promise<void> {
    if (this.#o.webhooks === undefined) throw webhooksNotConfigured();
    await this.#o.webhooks.check(webhook);
  }

  /**
   * `snapshot` (or list item) with what changes apart from its log: its webhook's deliveries as they
   * stand now (docs/protocol.md §9), and the link to its trace.
   */
  async #current<View extends RunSnapshot | RunListItem>(stored: View): Promise<View> {
    const { traceUrl } = this.#o;
    const snapshot =
      traceUrl === undefined || stored.trace_id === undefined
        ? stored
        : { ...stored, trace_url: traceUrl.replaceAll('{trace_id}', stored.trace_id) };
    if (snapshot.webhook === undefined || this.#o.webhooks === undefined) return snapshot;
    return {
      ...snapshot,
      webhook: { ...snapshot.webhook, deliveries: await this.#o.webhooks.deliveries(snapshot.run_id) },
    };
  }

  async #create(
    request: RunRequest,
    owner: string,
    idempotency?: { key: string; hash: string },
    pair?: { id: string; rollout: RolloutPairRef },
  ): Promise<Omit<CreatedRun, 'created'>> {
    const model = this.#o.models.resolve(request.model).id;
    const env = request.env ?? (await this.#o.catalog.defaultEnv());
    const task = await this.#o.catalog.resolve(env, request.task);
    // Checked again after the await: the server may have begun draining meanwhile.
    if (this.#draining) throw new DrainingError();
    const { secrets, ...kept } = request;
    const trace = this.#telemetry.captureTrace();
    const record: RunRecord = {
      id: pair?.id ?? newRunId(),
      owner,
      env,
      task,
      model,
      request: kept,
      createdAt: this.#now(),
      ...(trace === undefined ? {} : { trace }),
      ...(pair === undefined ? {} : { rollout: pair.rollout }),
    };
    const admission = await this.#scheduler.admit({
      record,
      secrets,
      requestBytes: JSON.stringify(request).length,
      ...(idempotency === undefined ? {} : { idempotency }),
    });
    if (admission.kind === 'refused')
      throw new CapacityError(admission.message, this.retryAfterSeconds(), admission.code);
    return { record, status: admission.kind === 'started' ? 'running' : 'queued' };
  }

  /** The run `id` with its log, if `owner` may see it (and touches it), else 404. */
  async open(id: string, owner: string): Promise<OpenedRun> {
    const run = await this.#streams.join(id);
    if (!run || run.record.owner !== owner) throw runNotFound(id);
    await this.#store.touch(id);
    return run;
  }

  /**
   * Counts a subscriber of run `id` in (a watched run is no orphan; shutdown waits for its subscribers
   * to read their terminal event); the returned function counts it out.
   */
  watch(id: string): () => void {
    return this.#streams.watch(id);
  }

  /** Records that someone looked at run `id` (a keep-alive written to its subscriber). */
  touch(id: string): Promise<void> {
    return this.#store.touch(id);
  }

  /** The snapshot of run `id`, if `owner` may see it (and touches it), else 404. */
  async snapshot(id: string, owner: string): Promise<RunSnapshot> {
    const stored = await this.#store.snapshot(id);
    if (!stored || stored.owner !== owner) throw runNotFound(id);
    await this.#store.touch(id);
    return this.#current(stored.snapshot);
  }

  /**
   * The status of `owner`'s run `id`, or undefined when there is none: one read, without the touch
   * and the deliveries of {@link snapshot}, for a rollout batch counting where its many pairs stand.
   */
  async statusOf(id: string, owner: string): Promise<RunStatus | undefined> {
    const stored = await this.#store.snapshot(id);
    return stored?.owner === owner ? stored.snapshot.status : undefined;
  }

  /** `owner`'s runs, newest first; a cursor naming no run of theirs is a 400. */
  async list(owner: string, query: RunListQuery): Promise<RunPage> {
    const page = await this.#store.list(owner, query);
    return { ...page, data: await Promise.all(page.data.map((snapshot) => this.#current(snapshot))) };
  }

  /**
   * Cancels `owner`'s run (idempotent) and answers its snapshot once the run has ended: `cancelled`, or
   * how it ended when its end came first. A queued run leaves the queue and ends at once; a running one
   * ends once its model call or tool call is aborted and its ORS session closed. A run that has not
   * ended within {@link CONFIRM_WAIT_MS} (its instance no longer answers, its ORS server is slow to
   * close the session) is answered as it stands then, the cancel still on its way.
   */
  async cancel(id: string, owner: string): Promise<RunSnapshot> {
    const run = await this.open(id, owner);
    await this.#cancel(id, 'client');
    await waitForTerminalWithin(run, this, CONFIRM_WAIT_MS);
    return this.snapshot(id, owner);
  }

  /**
   * Cancels `owner`'s pair run `id` without waiting for its end, as its batch is cancelled: the batch
   * answers at once, and a pair's end after the cancel is not recorded anyway.
   */
  async cancelPair(id: string, owner: string): Promise<void> {
    const stored = await this.#store.snapshot(id);
    if (!stored || stored.owner !== owner) throw runNotFound(id);
    await this.#cancel(id, 'client');
  }

  /**
   * Cancels run `id` wherever it is: here, in the queue (taken out and ended here, so it still gets
   * a whole log: `run.started`, then `run.cancelled`), or on the instance executing it.
   */
  async #cancel(id: string, reason: CancelReason): Promise<void> {
    if (this.#scheduler.holds(id)) return this.#scheduler.cancel(id, reason);
    const queued = await this.#store.unqueue(id);
    if (queued) return this.#scheduler.start(queued, reason);
    // A run that executes nowhere any more has ended already: there is nothing left to cancel.
    await this.#streams.send(id, { type: 'cancel', reason });
  }

  /** Forgets a finished run of `owner`; 409 while it is still queued or running. */
  async delete(id: string, owner: string): Promise<void> {
    const { status } = await this.snapshot(id, owner);
    if (!isFinishedStatus(status))
      throw new ConflictError(
        `Run "${id}" is ${status}; cancel it first, then delete it once it has ended.`,
        'run_active',
      );
    await this.#store.forget(id);
  }

  /** Cancels orphaned runs and forgets finished runs past their retention or the byte budget (also run every `RUNBRIDGE_SWEEP_SECONDS`). */
  sweep(): Promise<void> {
    return this.#retention.sweep();
  }

  /** Counts for `/health`: the runs on every instance, the subscribers on this one. */
  async stats(): Promise<RunStats> {
    return { ...(await this.#store.stats()), subscribers: this.#streams.subscribers() };
  }

  /** Resolves when the store answers now; 503 `store_unavailable` otherwise (`/health`, `/ready`). */
  pingStore(): Promise<void> {
    return this.#store.ping();
  }

  /** The counts this instance knows without asking anyone (shutdown waits on its subscribers). */
  localStats(): RunStats {
    return { ...this.#store.localCounts(), subscribers: this.#streams.subscribers() };
  }

  /**
   * Stops taking runs, cancels the queued ones no other instance will run, lets running ones finish
   * within `graceMs`, cancels the rest, and resolves when every episode has ended (terminal event
   * stored, ORS session deleted), the webhooks have had up to 10 s to deliver what is due, and
   * the store is closed.
   */
  async shutdown(graceMs: number): Promise<void> {
    this.#draining = true;
    this.#scheduler.stopAdmitting();
    for (const queued of await this.#store.abandon().catch(() => [])) this.#scheduler.start(queued, 'shutdown');
    await this.#scheduler.drain(graceMs);
    // Before the store closes: a shared outbox lives on its connection.
    await this.#o.webhooks?.stop(Math.min(graceMs, WEBHOOK_FLUSH_MS));
    await this.#retention.stop();
    await this.#store.close();
  }
}
