import { RunbridgeError } from '../errors.js';
import type { EventDetail } from '../protocol/event-detail.js';
import { RunEventFactory } from '../protocol/event-factory.js';
import { isTerminalEvent, type RunEvent, type RunEventInput, type RunEventOf } from '../protocol/run-events.js';
import { type RewardReduction, RUN_REQUEST_DEFAULTS } from '../protocol/run-request.js';
import { emptySummary, foldRunEvent, type RunSummary } from '../protocol/run-summary.js';
import { formatSseFrame } from '../sse/format-sse-frame.js';

/**
 * An event as stored: the object, its JSON serialised once so fan-out never re-serialises it, and
 * the entry's detail — what the record needs beyond the event, kept with it and never sent.
 */
export interface LoggedEvent {
  readonly event: RunEvent;
  readonly json: string;
  readonly detail: EventDetail | undefined;
  /** The event's `format=events` SSE frame (docs/protocol.md §3.1): what most subscribers are sent, made once with the entry. */
  readonly frame: string;
}

/** Adds to what a store holds as its logs grow (the memory store's stored-bytes budget). */
export interface ByteAccount {
  add(bytes: number): void;
}

/** An entry as a store keeps it: the event, its JSON and its detail (the log makes the frame). */
export type StoredEntry = Omit<LoggedEvent, 'frame'>;

/** The log refused an event because the run would hold more than its bytes (`RUNBRIDGE_MAX_RUN_BYTES`); the run must end. */
export class RunTooLargeError extends RunbridgeError {
  constructor(maxBytes: number) {
    super(
      `The run would hold more than ${maxBytes} bytes of events and details (RUNBRIDGE_MAX_RUN_BYTES) and was stopped.`,
      {
        code: 'run_too_large',
      },
    );
  }
}

/** Where one approval stands in a log: the event that announced it, and the one that resolved it once written. */
export interface ApprovalEntries {
  readonly required: RunEventOf<'tool.approval_required'>;
  resolved: { event: RunEventOf<'tool.approval_resolved'>; decisionId: string | undefined } | undefined;
}

/** The log refused an event because it holds `maxEvents` already; the run must end. */
export class EventLogFullError extends RunbridgeError {
  constructor(maxEvents: number) {
    super(`The run produced more than ${maxEvents} events (RUNBRIDGE_MAX_EVENTS_PER_RUN) and was stopped.`, {
      code: 'event_log_full',
    });
  }
}

/** Settings of an {@link EventLog}. */
export interface EventLogOptions {
  /** Events the log takes before it refuses progress events (`RUNBRIDGE_MAX_EVENTS_PER_RUN`); default no bound. */
  maxEvents?: number;
  /** Bytes of entries (events and details) past which it refuses progress events; default no bound. */
  maxBytes?: number;
  /** The clock of the events' timestamps, epoch ms; default `Date.now`. */
  now?: () => number;
  /**
   * The least time between two wakes of the log's readers, ms (`RUNBRIDGE_STREAM_FLUSH_SECONDS`); default 0:
   * once per turn of the event loop. See {@link EventLog}.
   */
  wakeMs?: number;
  /** How the run's tool rewards reduce to its reward in the {@link EventLog.summary}; default `last`. */
  rewardReduction?: RewardReduction;
  /** Told the bytes of every entry as it is added: a store's budget across its runs. */
  account?: ByteAccount;
}

/**
 * The append-only event log of one run: every subscriber, replay and snapshot is a view of it. It
 * folds each event into its {@link summary} as it is appended, so status and totals are read off the
 * log, never kept as a second account.
 * Appends are synchronous and never wait for a reader; readers poll by position and park on
 * {@link waitForAppend}, so a slow reader can never slow the run. Parked readers are woken once per
 * turn of the event loop, after every append of that turn, so a burst of events (several deltas of
 * one network chunk) reaches each subscriber as one write rather than one per event. With `wakeMs`,
 * they are woken at most once per `wakeMs`: the first event after a quiet period still goes out at
 * once, and the events that follow it closely wait for the end of the period and go out together —
 * one socket write per subscriber per period instead of one per step of the run (`bench/`,
 * benchmarks 1, 2 and 14). The terminal event and an interruption wake readers at once.
 *
 * At `maxEvents` (or `maxBytes`), further progress events are refused with {@link EventLogFullError}
 * (or {@link RunTooLargeError}); the events that close what a run opened (`tool.completed`,
 * `tool.approval_resolved`, `message.dropped`, terminal) are always accepted, so every log still ends well.
 */
export class EventLog {
  readonly #entries: LoggedEvent[] = [];
  readonly #factory: RunEventFactory;
  readonly #listeners = new Set<(entry: LoggedEvent) => void>();
  readonly #summary: RunSummary = emptySummary();
  /**
   * The approvals of the run by id: a decision asks where its approval stands, and a model may ask for
   * thousands at once, so each answer is one lookup rather than a scan of the log (issue 34).
   */
  readonly #approvals = new Map<string, ApprovalEntries>();
  readonly #maxEvents: number;
  readonly #maxBytes: number;
  readonly #reduction: RewardReduction;
  readonly #account: ByteAccount | undefined;
  #bytes = 0;
  #updatedAt: number | undefined;
  #wake: { promise: Promise<void>; resolve: () => void } = deferred();
  /** A wake is due: in this turn's check phase, or by {@link #wakeTimer} at the end of the period. */
  #wakeScheduled = false;
  #wakeTimer: NodeJS.Timeout | undefined;
  /** `performance.now()` of the last wake. */
  #lastWake = Number.NEGATIVE_INFINITY;
  readonly #wakeMs: number;
  #terminal: LoggedEvent | undefined;
  #interrupted = false;

  constructor(
    readonly runId: string,
    options: EventLogOptions = {},
  ) {
    this.#factory = new RunEventFactory(runId, options.now ?? Date.now);
    this.#maxEvents = options.maxEvents ?? Number.POSITIVE_INFINITY;
    this.#maxBytes = options.maxBytes ?? Number.POSITIVE_INFINITY;
    this.#reduction = options.rewardReduction ?? RUN_REQUEST_DEFAULTS.reward_reduction;
    this.#wakeMs = options.wakeMs ?? 0;
    this.#account = options.account;
  }

  /** Status and totals as the events so far say (docs/protocol.md §2); live, do not mutate it. */
  get summary(): Readonly<RunSummary> {
    return this.#summary;
  }

  /** Epoch ms of the newest event, or undefined while the log is empty. */
  get updatedAt(): number | undefined {
    return this.#updatedAt;
  }

  /** Epoch ms of the terminal event, once written. */
  get finishedAt(): number | undefined {
    return this.#terminal === undefined ? undefined : this.#updatedAt;
  }

  /** Characters of JSON the entries hold, events and details: what the stored-bytes budget counts of them. */
  get bytes(): number {
    return this.#bytes;
  }

  /** Number of events; also the `seq` the next event gets. */
  get length(): number {
    return this.#entries.length;
  }

  /** `seq` of the newest event, or -1 when the log is empty. */
  get lastSeq(): number {
    return this.#entries.length - 1;
  }

  /** The terminal event once written; after it the log never changes. */
  get terminal(): RunEvent | undefined {
    return this.#terminal?.event;
  }

  /** Every stored event, oldest first. The array is live; do not mutate it. */
  get entries(): readonly LoggedEvent[] {
    return this.#entries;
  }

  /** The entries of approval `approvalId` (announced, and resolved once it is), or undefined for one never announced. */
  approval(approvalId: string): Readonly<ApprovalEntries> | undefined {
    return this.#approvals.get(approvalId);
  }

  /** The events as objects, oldest first (a copy). */
  events(): RunEvent[] {
    return this.#entries.map((entry) => entry.event);
  }

  /**
   * Builds the event from `input`, stores it with `detail`, and schedules the wake of waiting readers
   * (see class doc). Throws once the terminal event is written (a bug in the producer) or when the
   * log is full.
   */
  append(input: RunEventInput, detail?: EventDetail): RunEvent {
    if (this.#terminal) {
      throw new Error(`run ${this.runId}: ${input.event} after the terminal ${this.#terminal.event.event}`);
    }
    const closing =
      input.event === 'tool.completed' ||
      input.event === 'tool.approval_resolved' ||
      input.event === 'message.dropped' ||
      isTerminalEvent(input);
    if (!closing && this.#entries.length >= this.#maxEvents) throw new EventLogFullError(this.#maxEvents);

    const event = this.#factory.build(input);
    // One shape for every entry (detail or not), so the code that reads entries stays monomorphic.
    const entry = entryOf(event, this.#factory.json(event), detail);
    const bytes = bytesOf(entry);
    if (!closing && this.#bytes + bytes > this.#maxBytes) {
      // The seq was taken by the factory: give it back, the event is not in the log.
      this.#factory.continueAt(event.seq);
      throw new RunTooLargeError(this.#maxBytes);
    }
    this.#add(entry, bytes);
    return event;
  }

  /**
   * Adds an entry as a store holds it: a copy of a log another instance writes. It must be the
   * next one (seq = length); readers are woken as for {@link append}.
   */
  appendStored({ event, json, detail }: StoredEntry): void {
    if (this.#terminal || event.seq !== this.#entries.length) {
      throw new Error(`run ${this.runId}: stored entry seq ${event.seq} does not follow seq ${this.lastSeq}`);
    }
    this.#factory.continueAt(event.seq + 1);
    const entry = entryOf(event, json, detail);
    this.#add(entry, bytesOf(entry));
  }

  #add(entry: LoggedEvent, bytes: number): void {
    const { event } = entry;
    this.#entries.push(entry);
    this.#bytes += bytes;
    this.#account?.add(bytes);
    foldRunEvent(this.#summary, event, this.#reduction);
    if (event.event === 'tool.approval_required') {
      this.#approvals.set(event.approval_id, { required: event, resolved: undefined });
    } else if (event.event === 'tool.approval_resolved') {
      const approval = this.#approvals.get(event.approval_id);
      // The entry's detail names the decision taken, so the request that sent it learns it won (§7.2).
      if (approval) approval.resolved ??= { event, decisionId: entry.detail?.approval?.decision_id };
    }
    this.#updatedAt = event.timestamp * 1000;
    if (isTerminalEvent(event)) this.#terminal = entry;
    for (const listener of this.#listeners) listener(entry);
    this.#scheduleWake();
  }

  /**
   * True once the log stopped following its store (the store became unreachable): it will not grow
   * any more, so whoever reads it ends and starts again from its cursor elsewhere or later.
   */
  get interrupted(): boolean {
    return this.#interrupted;
  }

  /** Marks the log {@link interrupted} and wakes every reader so it notices. */
  interrupt(): void {
    this.#interrupted = true;
    this.#scheduleWake();
  }

  /** Calls `listener` with every event appended from now on; returns the unsubscribe function. */
  onAppend(listener: (entry: LoggedEvent) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /** Resolves at the next wake of the log's readers (see the class doc); never rejects. */
  nextWake(): Promise<void> {
    return this.#wake.promise;
  }

  /**
   * Wakes parked readers in the check phase of this event-loop turn rather than at each append:
   * per event, each subscriber would pay a wake-up and a socket write (`bench/`: live fan-out to 10
   * subscribers went from 4.2 to 1.8 µs of CPU per delivered event). Within `wakeMs` of the last
   * wake, the wake waits for the period's end, unless the run ended or the log was interrupted.
   */
  #scheduleWake(): void {
    const atOnce = this.#terminal !== undefined || this.#interrupted;
    if (this.#wakeScheduled) {
      if (atOnce && this.#wakeTimer !== undefined) {
        clearTimeout(this.#wakeTimer);
        this.#wakeTimer = undefined;
        setImmediate(this.#wakeReaders);
      }
      return;
    }
    this.#wakeScheduled = true;
    const wait = atOnce || this.#wakeMs === 0 ? 0 : this.#lastWake + this.#wakeMs - performance.now();
    if (wait > 0) this.#wakeTimer = setTimeout(this.#wakeReaders, wait);
    else setImmediate(this.#wakeReaders);
  }

  readonly #wakeReaders = (): void => {
    this.#wakeScheduled = false;
    this.#wakeTimer = undefined;
    if (this.#wakeMs > 0) this.#lastWake = performance.now();
    const { resolve } = this.#wake;
    this.#wake = deferred();
    resolve();
  };
}

/**
 * The entry of `event`: its frame made as one flat string, its JSON a slice of it. One string per
 * entry rather than two — each a tree of the pieces it was joined from — halves what a log holds per
 * event, and the garbage collector's work with it (`bench/`, benchmark 1). JSON never holds a line
 * break, so the frame ends with the one `data:` line that holds it; a type with one is refused.
 */
function entryOf(event: RunEvent, json: string, detail: EventDetail | undefined): LoggedEvent {
  const frame = formatSseFrame({ id: event.seq, event: event.event, data: json });
  // Slicing flattens the frame in place, and the slice shares its characters.
  const end = frame.length - 2;
  return { event, json: frame.slice(end - json.length, end), detail, frame };
}

/** Characters of JSON `entry` holds: its event, and its detail when it has one. */
function bytesOf(entry: LoggedEvent): number {
  return entry.json.length + (entry.detail === undefined ? 0 : JSON.stringify(entry.detail).length);
}

function deferred(): { promise: Promise<void>; resolve: () => void } {
  let resolve!: () => void;
  const promise = new Promise<void>((done) => {
    resolve = done;
  });
  return { promise, resolve };
}
