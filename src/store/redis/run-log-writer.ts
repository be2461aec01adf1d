import { isFinishedStatus } from '../../protocol/run-status.js';
import type { EventLog, LoggedEvent } from '../../runs/event-log.js';
import { type RunRecord, recordBytes } from '../../runs/run-record.js';
import { listItemOf } from '../../runs/snapshot-of.js';
import { StoreUnavailableError } from '../../runs/store-unavailable-error.js';
import type { Logger } from '../../telemetry/logger.js';
import { runLogFields } from '../../telemetry/run-log-fields.js';
import type { RedisConnection } from './redis-connection.js';
import type { RedisKeys } from './redis-keys.js';

export interface RunLogWriterOptions {
  connection: RedisConnection;
  keys: RedisKeys;
  /** This instance: the run's holder, which the store checks before every append. */
  instance: string;
  /** How long a finished run's keys live in Redis (the store's retention, plus a margin). */
  expireMs: number;
  log: Logger;
}

/** How a writer ended: the whole log stored, refused by the store, or stopped with the store. */
export type WriterOutcome = 'stored' | 'fenced' | 'closed';

/** What the store answered an append: stored (up to `next`), or why not. */
type AppendAnswer =
  | { kind: 'ok'; next: number }
  | { kind: 'gap' | 'ended'; last: number }
  | { kind: 'gone' }
  | { kind: 'fenced' };

/** Most entries one append carries; a longer backlog (after an outage) goes in several. */
const MAX_BATCH = 500;
const RETRY_MIN_MS = 50;
const RETRY_MAX_MS = 2000;

/** A stored entry's detail as the store keeps it: JSON, or '' for none. */
export function detailJson(entry: LoggedEvent): string {
  return entry.detail === undefined ? '' : JSON.stringify(entry.detail);
}

/**
 * Stores the log of a run this instance executes in its Redis Stream, as the episode writes it:
 * the events of one turn of the event loop go in one fenced append (with the run's list item), so the
 * episode never waits on Redis and each event costs Redis one entry, not one round trip. While Redis
 * is unreachable the entries wait here and are retried with backoff.
 *
 * An append whose answer was lost (its command timed out on a Redis that stalled, and ran when it woke)
 * may have landed: the store answers the next one with what it holds, and the writer goes on from there
 * — each entry is stored once, by seq, and counted once. A record that vanished (Redis restarted without
 * its data) is written back whole, with the log so far. Only when another instance ended the run (it
 * took this one for lost) does writing stop, and `done` says so: `fenced` (docs/protocol.md §8.4).
 */
export class RunLogWriter {
  readonly #o: RunLogWriterOptions;
  readonly #record: RunRecord;
  readonly #log: EventLog;
  /** Seq of the first entry not yet stored. */
  #stored = 0;
  #flushing = false;
  #scheduled = false;
  #retryMs = RETRY_MIN_MS;
  #retry: NodeJS.Timeout | undefined;
  #closed = false;
  /** The run's record is gone from Redis: write it back before the next append. */
  #lost = false;
  readonly #done: Promise<WriterOutcome>;
  #resolve!: (outcome: WriterOutcome) => void;
  readonly #unsubscribe: () => void;

  constructor(record: RunRecord, log: EventLog, options: RunLogWriterOptions) {
    this.#o = options;
    this.#record = record;
    this.#log = log;
    this.#done = new Promise((resolve) => {
      this.#resolve = resolve;
    });
    this.#unsubscribe = log.onAppend(() => this.#schedule());
    if (log.length > 0) this.#schedule();
  }

  /** Resolves once the terminal event is stored, the store refused the log, or the writer was closed. */
  get done(): Promise<WriterOutcome> {
    return this.#done;
  }

  /** Stops writing (the store is closing): what is not stored by now stays unstored. */
  close(): void {
    this.#closed = true;
    clearTimeout(this.#retry);
    this.#finish('closed');
  }

  /** The run's record is gone from Redis (found at a lease renewal): writes it back, with the log so far. */
  writeBack(): void {
    this.#lost = true;
    this.#schedule();
  }

  #schedule(): void {
    if (this.#scheduled || this.#flushing || this.#closed) return;
    this.#scheduled = true;
    setImmediate(() => {
      this.#scheduled = false;
      void this.#flush();
    });
  }

  async #flush(): Promise<void> {
    if (this.#flushing || this.#closed) return;
    this.#flushing = true;
    try {
      while (!this.#closed && (this.#lost || this.#stored < this.#log.length)) {
        if (this.#lost) await this.#writeRecordBack();
        else if (!this.#take(await this.#appendBatch())) {
          this.#finish('fenced');
          return;
        }
        this.#retryMs = RETRY_MIN_MS;
      }
      if (this.#log.terminal && this.#stored === this.#log.length) this.#finish('stored');
    } catch (error) {
      if (!(error instanceof StoreUnavailableError))
        this.#o.log.error(
          { ...runLogFields(this.#record), err: error },
          `storing the log of ${this.#record.id} failed`,
        );
      this.#retry = setTimeout(() => void this.#flush(), this.#retryMs);
      this.#retryMs = Math.min(RETRY_MAX_MS, this.#retryMs * 2);
    } finally {
      this.#flushing = false;
    }
  }

  /**
   * Moves on as the store's answer to an append says; false once the store refuses the run for good.
   * `gap` and `ended` carry the last seq Redis holds: an earlier append landed though its answer was lost.
   */
  #take(answer: AppendAnswer): boolean {
    const length = this.#log.length;
    switch (answer.kind) {
      case 'ok':
        this.#stored = answer.next;
        return true;
      case 'gone':
        this.#lost = true;
        return true;
      case 'gap':
        // Redis holds the entries up to `last`, all written from this log: go on after them.
        if (answer.last >= length) return false;
        this.#stored = answer.last + 1;
        return true;
      case 'ended':
        // The terminal batch landed: the run ended in Redis as it did here.
        if (!this.#log.terminal || answer.last !== length - 1) return false;
        this.#stored = length;
        return true;
      case 'fenced':
        return false;
    }
  }

  async #appendBatch(): Promise<AppendAnswer> {
    const log = this.#log;
    const first = this.#stored;
    const batch = log.entries.slice(first, first + MAX_BATCH);
    const last = first + batch.length - 1;
    const terminal = log.terminal !== undefined && batch.at(-1)?.event === log.terminal;
    let bytes = 0;
    let messagesTaken = 0;
    const pairs: string[] = [];
    for (const entry of batch) {
      const detail = detailJson(entry);
      bytes += entry.json.length + detail.length;
      if (entry.event.event === 'message.received') messagesTaken++;
      pairs.push(entry.json, detail);
    }
    const reply = await this.#o.connection.script(
      'rbAppend',
      this.#o.keys.prefix,
      {
        id: this.#record.id,
        holder: this.#o.instance,
        first,
        count: batch.length,
        snapshot: this.#listItem(last, terminal),
        bytes,
        finishedAt: terminal ? Math.round(log.finishedAt ?? Date.now()) : '',
        expireMs: this.#o.expireMs,
        lease: '',
        messagesTaken,
      },
      pairs,
    );
    if (Array.isArray(reply)) return { kind: reply[0] === 'ended' ? 'ended' : 'gap', last: Number(reply[1]) };
    if (reply === 'ok') return { kind: 'ok', next: last + 1 };
    return { kind: reply === 'gone' ? 'gone' : 'fenced' };
  }

  /**
   * The run as lists show it once the log is stored up to `last` (`terminal`: with its terminal event):
   * each waiting call summarised, so an append stores a few hundred bytes per call whatever the size of
   * its arguments (docs/protocol.md §2.6).
   */
  #listItem(last: number, terminal: boolean): string {
    const item = listItemOf(this.#record, this.#log);
    // What Redis shows matches what it holds: a run whose terminal event is still on its way shows as
    // live — `running`, or waiting on a person (`requires_action`, `awaiting_input`).
    const shown = terminal || !isFinishedStatus(item.status) ? item.status : 'running';
    return JSON.stringify({ ...item, status: shown, last_seq: last });
  }

  /** Puts the run's record back in Redis, as this instance executing it, so its whole log is written again. */
  async #writeRecordBack(): Promise<void> {
    const record = this.#record;
    const restored = await this.#o.connection.script('rbRestore', this.#o.keys.prefix, {
      id: record.id,
      owner: record.owner,
      record: JSON.stringify(record),
      snapshot: this.#listItem(-1, false),
      createdAt: record.createdAt,
      storedBytes: recordBytes(record),
      instance: this.#o.instance,
      touchedAt: Date.now(),
      listed: record.rollout === undefined ? 1 : 0,
    });
    this.#lost = false;
    if (restored !== 1) return;
    this.#stored = 0;
    this.#o.log.warn(
      { ...runLogFields(record) },
      `run ${record.id} had no record in Redis any more (did it restart without its data?); this instance wrote it back, with its log, and goes on.`,
    );
  }

  #finish(outcome: WriterOutcome): void {
    this.#unsubscribe();
    this.#resolve(outcome);
  }
}
