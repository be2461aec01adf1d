import { DrainingError, RunbridgeError } from '../errors.js';
import type { ModelRegistry } from '../models/model-registry.js';
import type { OrsClient } from '../ors/client/ors-client.js';
import type { EpisodeCaps } from '../protocol/episode-caps.js';
import type { CancelReason } from '../protocol/run-events.js';
import { DEFAULT_WAIT_SECONDS } from '../protocol/run-request.js';
import type { RunObserver } from '../telemetry/run-observer.js';
import type { Telemetry } from '../telemetry/telemetry.js';
import type { ControlMessage, ControlOutcome } from './control-message.js';
import type { EventLog } from './event-log.js';
import { outcomeOf } from './outcome-of.js';
import { RunCancelledError } from './run-cancelled-error.js';
import type { RunEndListener } from './run-end-listener.js';
import { runEpisode } from './run-episode.js';
import { RunInbox } from './run-inbox.js';
import type { RunRecord } from './run-record.js';
import type { Admission, ClaimedRun, NewRun, RunStore } from './run-store.js';
import type { RunStreams } from './run-streams.js';
import type { TaskTracker } from './task-tracker.js';

export interface SchedulerLimits {
  maxConcurrentRuns: number;
  runTimeoutMs: number;
  toolOutputEventChars: number;
  /** Period of `tool.progress` while a tool call runs; undefined sends none. */
  toolProgressMs?: number;
  /** What one turn and one tool result may put into a run; unset caps take their defaults. */
  caps?: Partial<EpisodeCaps>;
}

export interface RunSchedulerOptions {
  ors: OrsClient;
  models: ModelRegistry;
  store: RunStore;
  /** Where the logs of the runs executing here are published, and their control messages come from. */
  streams: RunStreams;
  limits: SchedulerLimits;
  tasks: TaskTracker;
  /** Hears of each run's steps, for the logs, metrics and traces. */
  telemetry: Telemetry;
  now: () => number;
  /** The bridge's own secrets, cut out of everything a run writes (docs/security.md). */
  bridgeSecrets?: readonly string[];
  /** Hears of every run as it starts here, before its first event (the webhooks watch their events). */
  onStart?: (record: RunRecord, log: EventLog) => void;
  /** Hears of every run that ended here once the store holds its whole log (the pairs of rollout batches are recorded then). */
  onEnd?: RunEndListener;
}

/** Why a run another instance ended was stopped here, as its `run.failed` here says. */
const ABANDONED = 'Another instance ended this run while this one could not reach the store.';

/** How long shutdown waits, after the last episode ended, for the store to hold the logs. */
const STORE_WAIT_MS = 5000;

/**
 * Executes runs on this instance: at most `maxConcurrentRuns` episodes at once, each a tracked
 * background task under its time limit, taken from the store's queue whenever a slot frees up (or the
 * store says runs may have become claimable), its log published to the store's streams with the run's
 * inbox for control messages. Cancels the runs it executes, estimates when a refused caller should come
 * back, and drains on shutdown. The queue itself, and the quotas it keeps, are the store's.
 */
export class RunScheduler {
  readonly #o: RunSchedulerOptions;
  readonly #active = new Map<string, { controller: AbortController; inbox: RunInbox; observer: RunObserver }>();
  /** The episodes in flight (their slots free later, once the store holds their whole log). */
  readonly #episodes = new Set<Promise<unknown>>();
  /** Slots promised to runs being created (`reserve`), so two creations never take the last one. */
  #reserved = 0;
  #meanRunMs = 0;
  #stopped = false;
  #pumping: Promise<void> | undefined;
  #pumpAgain = false;
  readonly #stopClaimable: () => void;

  constructor(options: RunSchedulerOptions) {
    this.#o = options;
    this.#stopClaimable = options.store.onClaimable(() => {
      if (this.freeSlots() > 0) this.wake();
    });
  }

  /** Runs executing here. */
  get running(): number {
    return this.#active.size;
  }

  /** Slots free right now. */
  freeSlots(): number {
    return Math.max(0, this.#o.limits.maxConcurrentRuns - this.#active.size - this.#reserved);
  }

  /**
   * Admits a new run (docs/protocol.md §6): reserves a slot of this instance if one is free, asks the
   * store to start the run in it or queue it, and starts it here when the store says so — the run holds
   * its slot before the reservation ends, so the queue's pump never sees it free in between. The one
   * sequence by which a run enters; 503 once draining.
   */
  async admit(entry: Omit<NewRun, 'startHere'>): Promise<Admission> {
    const slot = await this.#reserveSoon();
    if (this.#stopped) {
      slot?.(false);
      throw new DrainingError();
    }
    let admission: Admission;
    try {
      admission = await this.#o.store.submit({ ...entry, startHere: slot !== undefined });
    } catch (error) {
      slot?.(false);
      throw error;
    }
    if (admission.kind === 'started') {
      this.start({ record: entry.record, secrets: entry.secrets, log: admission.log });
      slot?.(true);
    } else {
      slot?.(false);
    }
    return admission;
  }

  /**
   * Promises a free slot (if any) to a run being created; call the returned function with whether
   * the run took it. Without a free slot it returns undefined.
   */
  #reserve(): ((taken: boolean) => void) | undefined {
    if (this.#stopped || this.freeSlots() === 0) return undefined;
    this.#reserved++;
    let settled = false;
    return (taken) => {
      if (settled) return;
      settled = true;
      this.#reserved--;
      if (!taken) this.wake();
    };
  }

  /**
   * As {@link #reserve}, but when the slots are only held by a claim from the queue in flight, waits
   * for that claim first: a slot it did not use is free again. Without this a run posted while the
   * queue was being polled would queue (and start a moment later) though a slot was free.
   */
  async #reserveSoon(): Promise<((taken: boolean) => void) | undefined> {
    for (let tries = 0; tries < 3; tries++) {
      const slot = this.#reserve();
      if (slot !== undefined || this.#pumping === undefined) return slot;
      await this.#pumping.catch(() => undefined);
    }
    return this.#reserve();
  }

  /** Admits no more runs (shutdown has begun); those running go on until {@link drain}. */
  stopAdmitting(): void {
    this.#stopped = true;
    this.#stopClaimable();
  }

  /** True while run `id` executes here. */
  holds(id: string): boolean {
    return this.#active.has(id);
  }

  /** Starts a run the store has given to this instance (`cancelled`: end it at once with that reason). */
  start({ record, secrets, log }: ClaimedRun, cancelled?: CancelReason): void {
    const { ors, models, store, streams, limits, now } = this.#o;
    const { request } = record;
    const controller = new AbortController();
    if (cancelled) controller.abort(new RunCancelledError(cancelled));
    const inbox = new RunInbox();
    const observer = this.#o.telemetry.observeRun({
      id: record.id,
      env: record.env,
      model: record.model,
      trace: record.trace,
    });
    inbox.onWait((waiting) => {
      // Shutdown waits for no one: a run that waits on a person is cancelled at once.
      if (waiting && this.#stopped) this.cancel(record.id, 'shutdown');
      // The time spent waiting on a person does not count towards being orphaned.
      if (!waiting) void store.touch(record.id).catch(() => undefined);
    });
    this.#active.set(record.id, { controller, inbox, observer });
    this.#o.onStart?.(record, log);
    // A rollout pair also has its batch's own limit, which may be shorter.
    const limitMs = Math.min(limits.runTimeoutMs, record.rollout?.timeout_ms ?? Number.POSITIVE_INFINITY);
    const timeout = setTimeout(() => controller.abort(new RunCancelledError('timeout')), limitMs);
    const started = now();
    const stored = streams.publish({ record, log, control: (message) => this.#control(record.id, message) });
    // Another instance ended the run (it took this one for lost): that end is the one kept, so stop here.
    void stored.then((held) => {
      if (!held) this.#abandon(record.id);
    });
    const episode = observer.within(() =>
      runEpisode({
        ors,
        model: models.resolve(record.model),
        env: record.env,
        task: record.task,
        input: request.input,
        instructions: request.instructions,
        sampling: request.sampling,
        maxTurns: request.max_turns,
        rewardReduction: request.reward_reduction,
        inbox,
        approval: request.approval,
        inputTimeoutMs: request.await_input
          ? (request.input_timeout_seconds ?? DEFAULT_WAIT_SECONDS) * 1000
          : undefined,
        secrets,
        ...(this.#o.bridgeSecrets === undefined ? {} : { bridgeSecrets: this.#o.bridgeSecrets }),
        toolOutputEventChars: limits.toolOutputEventChars,
        toolProgressMs: limits.toolProgressMs,
        ...(limits.caps === undefined ? {} : { caps: limits.caps }),
        signal: controller.signal,
        emit: (event, detail) => log.append(event, detail),
        now,
        observer,
      }),
    );
    this.#episodes.add(episode);
    const forget = () => this.#episodes.delete(episode);
    // A rejection is the tracker's to report (below), not an unhandled one; the run's signals end too.
    episode.then(forget, () => {
      forget();
      observer.end(outcomeOf(log));
    });
    this.#o.tasks.track(
      episode
        // The slot frees once the store holds the whole log, so a run never outlives its slot.
        .then(() => stored)
        .finally(() => {
          clearTimeout(timeout);
          this.#active.delete(record.id);
          const took = now() - started;
          this.#meanRunMs = this.#meanRunMs === 0 ? took : this.#meanRunMs * 0.9 + took * 0.1;
          this.wake();
        })
        // Only a log the store holds as written here is this run's end, told once: its end line, its count,
        // its listener. Another instance ended it otherwise, and tells that end (docs/operations.md).
        .then(async (held) => {
          if (!held) return observer.endedElsewhere(outcomeOf(log));
          observer.end(outcomeOf(log));
          await this.#o.onEnd?.(record, log);
        }),
    );
  }

  /** Cancels a run executing here with `reason`; a finished or already cancelled one is left alone. */
  cancel(id: string, reason: CancelReason): void {
    const controller = this.#active.get(id)?.controller;
    if (controller && !controller.signal.aborted) controller.abort(new RunCancelledError(reason));
  }

  /** Delivers a control message to a run executing here (docs/protocol.md §7); `gone` once it no longer does. */
  #control(id: string, message: ControlMessage): ControlOutcome {
    const active = this.#active.get(id);
    if (!active) return 'gone';
    switch (message.type) {
      case 'cancel':
        this.cancel(id, message.reason);
        return 'sent';
      case 'approval':
        active.inbox.decide({
          approvalId: message.approval_id,
          decision: message.decision,
          ...(message.arguments === undefined ? {} : { arguments: message.arguments }),
          ...(message.reason === undefined ? {} : { reason: message.reason }),
          decisionId: message.decision_id,
        });
        return 'sent';
      case 'message':
        return active.inbox.post({ messageId: message.message_id, content: message.content }) ? 'sent' : 'full';
    }
  }

  /**
   * Stops a run another instance ended (it took this one for lost): its episode ends and closes its ORS
   * session; what it writes from here on stays here, and that instance tells its end.
   */
  #abandon(id: string): void {
    const active = this.#active.get(id);
    if (!active || active.controller.signal.aborted) return;
    active.controller.abort(new RunbridgeError(ABANDONED, { code: 'instance_lost' }));
  }

  /** Takes queued runs from the store while slots are free; runs of overlapping calls are folded into one. */
  wake(): void {
    if (this.#stopped) return;
    if (this.#pumping) {
      this.#pumpAgain = true;
      return;
    }
    this.#pumping = this.#pump().finally(() => {
      this.#pumping = undefined;
      if (this.#pumpAgain) {
        this.#pumpAgain = false;
        this.wake();
      }
    });
    this.#o.tasks.track(this.#pumping);
  }

  async #pump(): Promise<void> {
    while (!this.#stopped) {
      const free = this.freeSlots();
      if (free === 0) return;
      this.#reserved += free;
      let claimed: ClaimedRun[];
      try {
        claimed = await this.#o.store.claim(free);
      } finally {
        this.#reserved -= free;
      }
      for (const run of claimed) this.start(run);
      if (claimed.length < free) return;
    }
  }

  /**
   * Seconds a refused caller should wait (`Retry-After`), whatever refused it: the mean run time scaled by
   * how many runs wait here per slot, 1–60.
   */
  retryAfterSeconds(): number {
    const { maxConcurrentRuns } = this.#o.limits;
    const { queued } = this.#o.store.localCounts();
    const estimate = ((this.#meanRunMs || 5000) * (1 + queued / maxConcurrentRuns)) / 1000;
    return Math.min(60, Math.max(1, Math.ceil(estimate)));
  }

  /**
   * Takes no more runs, lets running ones finish within `graceMs`, cancels the rest, and resolves
   * when every episode has ended (terminal event written, ORS session deleted) and the store holds
   * their logs — or, when it cannot be reached, at most `STORE_WAIT_MS` (or `graceMs`, if longer) later.
   */
  async drain(graceMs: number): Promise<void> {
    this.stopAdmitting();
    for (const [id, { inbox }] of this.#active) if (inbox.waiting) this.cancel(id, 'shutdown');
    await within(this.#o.tasks.idle(), graceMs);
    for (const id of this.#active.keys()) this.cancel(id, 'shutdown');
    while (this.#episodes.size > 0) await Promise.allSettled([...this.#episodes]);
    await within(this.#o.tasks.idle(), Math.max(graceMs, STORE_WAIT_MS));
  }
}

/** Waits for `work`, but `limitMs` at most. */
async function within(work: Promise<unknown>, limitMs: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const limit = new Promise<void>((resolve) => {
    timer = setTimeout(resolve, limitMs);
  });
  try {
    await Promise.race([work, limit]);
  } finally {
    clearTimeout(timer);
  }
}
