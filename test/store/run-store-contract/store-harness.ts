import { randomBytes } from 'node:crypto';
import { afterEach, beforeEach, describe, expect } from 'vitest';
import { loadConfig } from '../../../src/config/index.js';
import type { RunEvent, RunEventInput } from '../../../src/protocol/run-events.js';
import { type RunRequestInput, RunRequestSchema } from '../../../src/protocol/run-request.js';
import type { ControlMessage } from '../../../src/runs/control-message.js';
import type { EventLog } from '../../../src/runs/event-log.js';
import { requestHasher } from '../../../src/runs/request-hasher.js';
import { newRunLog, type RolloutPairRef, type RunRecord, recordBytes } from '../../../src/runs/run-record.js';
import type { Admission, ClaimedRun, NewRun, RunStore, StoreLimits } from '../../../src/runs/run-store.js';
import type { RunStreams } from '../../../src/runs/run-streams.js';

/** A kind of store the contracts are run against, as its test file opens it. */
export interface StoreKind {
  /**
   * True when instances share the store (Redis): each sees every run, and the queue is everyone's.
   * False for a store of one process alone (memory): the contracts then open one instance per test.
   */
  shared: boolean;
  /** Opens an instance — both its ports — on the current test's data: instances opened in one test share it when `shared`. */
  open(options: { limits: StoreLimits; now: () => number }): Promise<{ store: RunStore; streams: RunStreams }>;
}

/** Small bounds, so a test reaches each of them with a few runs. */
export const LIMITS: StoreLimits = {
  maxQueuedRuns: 3,
  maxRunningPerKey: 1,
  maxQueuedPerKey: 2,
  maxQueuedBytes: 100_000,
  maxStoredBytes: 1_000_000,
  maxStoredBytesPerKey: 1_000_000,
  maxRunBytes: 1_000_000,
  retentionMs: 60_000,
  orphanTtlMs: 10_000,
  maxEventsPerRun: 50,
  // As a served bridge has it by default (RUNBRIDGE_STREAM_FLUSH_SECONDS).
  streamFlushMs: loadConfig({}).streamFlushMs,
};

/** Hashes of two request bodies, as an `Idempotency-Key` is bound to them. */
const hashRequest = requestHasher(randomBytes(32));
export const BODY = hashRequest(RunRequestSchema.parse({ input: 'one body' }));
export const OTHER_BODY = hashRequest(RunRequestSchema.parse({ input: 'another body' }));

/** One instance of the store under test, its two ports, and what they told it. */
export interface Instance {
  store: RunStore;
  streams: RunStreams;
  /** The control messages that reached the inboxes of the runs this instance published, in order. */
  controls: Array<{ runId: string; message: ControlMessage }>;
  /** The runs this instance ended for an executor that no longer ran them (`onEnded`). */
  ended: string[];
  /** How often the store said queued runs may have become claimable (`onClaimable`). */
  claimable: number;
}

/** A run this instance executes: its record, the log it plays into, and the streams' `publish` of it. */
export interface ExecutedRun {
  record: RunRecord;
  log: EventLog;
  /** Resolves once the store holds the terminal event and freed the run's slot: true when it holds the log written here. */
  tracked: Promise<boolean>;
}

/** Whole seconds, so an event's timestamp (epoch seconds) turns back into exactly the ms it was written at. */
const START = 1_700_000_000_000;
let runs = 0;

/**
 * What every contract test works with: a clock it moves by hand (so retention and orphans need no
 * sleeping), instances of the store that record what it tells them (closed after the test), and runs
 * made, published and played as the scheduler makes, publishes and plays them.
 */
export class StoreHarness {
  readonly kind: StoreKind;
  #now = START;
  #instances: Instance[] = [];

  constructor(kind: StoreKind) {
    this.kind = kind;
    beforeEach(() => {
      this.#now = START;
    });
    afterEach(async () => {
      const open = this.#instances;
      this.#instances = [];
      for (const { store } of open) await store.close();
    });
  }

  /** The clock every instance and log of the test reads. */
  readonly now = (): number => this.#now;

  /** Moves the clock on by `ms`. */
  advance(ms: number): void {
    this.#now += ms;
  }

  /** Opens an instance of the store with {@link LIMITS} changed by `limits`, recording what it is told. */
  async open(limits: Partial<StoreLimits> = {}): Promise<Instance> {
    const { store, streams } = await this.kind.open({ limits: { ...LIMITS, ...limits }, now: this.now });
    const instance: Instance = { store, streams, controls: [], ended: [], claimable: 0 };
    streams.onEnded(({ record }) => instance.ended.push(record.id));
    store.onClaimable(() => instance.claimable++);
    this.#instances.push(instance);
    return instance;
  }

  /** Closes `instance` before the test ends (the others are closed after it). */
  async close(instance: Instance): Promise<void> {
    this.#instances = this.#instances.filter((open) => open !== instance);
    await instance.store.close();
  }

  /** A new run of `owner` as the scheduler hands it to `submit`, created now. */
  newRun(
    owner: string,
    options: {
      request?: RunRequestInput;
      secrets?: Record<string, unknown>;
      idempotency?: { key: string; hash: string };
      startHere?: boolean;
      /** The rollout pair it plays, for a run of a batch. */
      rollout?: RolloutPairRef;
    } = {},
  ): NewRun {
    const request = RunRequestSchema.parse(options.request ?? {});
    const record: RunRecord = {
      id: `run_${String(++runs).padStart(6, '0')}`,
      owner,
      env: 'arith',
      task: { split: 'train', index: 0 },
      model: 'offline',
      request,
      createdAt: this.#now,
      ...(options.rollout === undefined ? {} : { rollout: options.rollout }),
    };
    const requestBytes = JSON.stringify(
      options.secrets === undefined ? request : { ...request, secrets: options.secrets },
    ).length;
    return {
      record,
      secrets: options.secrets,
      requestBytes,
      ...(options.idempotency === undefined ? {} : { idempotency: options.idempotency }),
      startHere: options.startHere ?? true,
    };
  }

  /** Submits a run of `owner` that `instance` has a slot for, expects it started, and publishes it as the scheduler does. */
  async start(instance: Instance, owner: string, options: Parameters<StoreHarness['newRun']>[1] = {}) {
    const run = this.newRun(owner, { ...options, startHere: true });
    const admission = await instance.store.submit(run);
    expect(admission.kind).toBe('started');
    const { log } = admission as Extract<Admission, { kind: 'started' }>;
    return this.publish(instance, { record: run.record, secrets: run.secrets, log });
  }

  /** {@link start}s a run of `owner` on `instance` and plays its first event: a run under way. */
  async running(instance: Instance, owner: string, options: Parameters<StoreHarness['newRun']>[1] = {}) {
    const run = await this.start(instance, owner, options);
    play(run.log, started(run.record));
    return run;
  }

  /** Publishes a run `instance` executes (submitted, claimed or unqueued), its inbox recording what reaches it. */
  publish(instance: Instance, { record, log }: ClaimedRun): ExecutedRun {
    const tracked = instance.streams.publish({
      record,
      log,
      control: (message) => {
        instance.controls.push({ runId: record.id, message });
        return 'sent';
      },
    });
    return { record, log, tracked };
  }

  /** Submits a run of `owner` that no instance has a slot for, and expects it queued. */
  async queue(instance: Instance, owner: string, options: Parameters<StoreHarness['newRun']>[1] = {}) {
    const run = this.newRun(owner, { ...options, startHere: false });
    expect(await instance.store.submit(run)).toEqual({ kind: 'queued' });
    return run.record;
  }

  /** Starts a run on `instance` and plays it to its end; resolves once the store holds it whole. */
  async finished(instance: Instance, owner: string, options: Parameters<StoreHarness['newRun']>[1] = {}) {
    const run = await this.start(instance, owner, options);
    play(run.log, started(run.record), completed());
    await run.tracked;
    return run;
  }

  /** The bytes a run made by {@link newRun} and played as {@link finished} plays it holds, were it finished now. */
  finishedBytes(owner: string, options: Parameters<StoreHarness['newRun']>[1] = {}): number {
    const { record } = this.newRun(owner, options);
    const log = newRunLog(record, { maxEvents: LIMITS.maxEventsPerRun, now: this.now });
    play(log, started(record), completed());
    return recordBytes(record) + log.bytes;
  }
}

/**
 * A contract suite named `title`: `setup` is called inside it, so the hooks it registers (a Redis server,
 * a fresh key prefix per test) belong to it, and each of `parts` adds its tests on one harness.
 */
export function describeContract(title: string, setup: () => StoreKind, parts: Array<(h: StoreHarness) => void>) {
  describe(title, () => {
    const h = new StoreHarness(setup());
    for (const part of parts) part(h);
  });
}

/** Appends `inputs` to `log`, as an episode writes them. */
export function play(log: EventLog, ...inputs: RunEventInput[]): RunEvent[] {
  return inputs.map((input) => log.append(input));
}

/** A run's first event. */
export function started(record: RunRecord): RunEventInput {
  return { event: 'run.started', env: record.env, task: record.task, model: record.model };
}

/** A run's last event, when it completes. */
export function completed(): RunEventInput {
  return {
    event: 'run.completed',
    output: 'Done.',
    usage: { input_tokens: 10, output_tokens: 2, total_tokens: 12 },
    reward: 1,
    rewards: [],
    finished: true,
    turns: 1,
    stop_reason: 'finished',
  };
}

/** Resolves once `log` holds its terminal event (a log read from a shared store fills in as it is written). */
export async function untilTerminal(log: EventLog): Promise<void> {
  while (!log.terminal) await log.nextWake();
}

/**
 * Resolves once `owner`'s newest run lists with its log up to `seq`: a shared store lists what it holds,
 * which a run's writer brings in after the turn of the event loop its events were written in.
 */
export async function untilListed(store: RunStore, owner: string, seq: number): Promise<void> {
  while (((await store.list(owner, { limit: 1 })).data[0]?.last_seq ?? -1) < seq) {
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}
