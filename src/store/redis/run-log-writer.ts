import { isFinishedStatus } from '../../protocol/run-status.js';
import type { EventLog, LoggedEvent } from '../../runs/event-log.js';
import type { RunRecord } from '../../runs/run-record.js';
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
  /** The store refused the appends: another instance ended the run (this one was taken for lost). */
  onFenced: (why: string) => void;
  log: Logger;
}

/** How a writer ended: the whole log stored, refused by the store, or stopped with the store. */
export type WriterOutcome = 'stored' | 'fenced' | 'closed';

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
 * is unreachable the entries wait here and are retried with backoff; once the store refuses them
 * (the run was ended elsewhere as lost) writing stops and `onFenced` says so.
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
      while (!this.#closed && this.#stored < this.#log.length) {
        const outcome = await this.#appendBatch();
        if (outcome !== 'ok') {
          this.#o.onFenced(outcome);
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

  async #appendBatch(): Promise<string> {
    const log = this.#log;
    const first = this.#stored;
    const batch = log.entries.slice(first, first + MAX_BATCH);
    const last = first + batch.length - 1;
    const terminal = log.terminal !== undefined && batch.at(-1)?.event === log.terminal;
    // The run as lists show it: each waiting call summarised, so an append stores a few hundred bytes
    // per call whatever the size of its arguments (docs/protocol.md §2.6).
    const snapshot = listItemOf(this.#record, log);
    // What Redis shows matches what it holds: a run whose terminal event is still on its way shows as
    // live — `running`, or waiting on a person (`requires_action`, `awaiting_input`).
    const shown = terminal || !isFinishedStatus(snapshot.status) ? snapshot.status : 'running';
    let bytes = 0;
    let messagesTaken = 0;
    const pairs: string[] = [];
    for (const entry of batch) {
      const detail = detailJson(entry);
      bytes += entry.json.length + detail.length;
      if (entry.event.event === 'message.received') messagesTaken++;
      pairs.push(entry.json, detail);
    }
    const outcome = String(
      await this.#o.connection.script(
        'rbAppend',
        this.#o.keys.prefix,
        {
          id: this.#record.id,
          holder: this.#o.instance,
          first,
          count: batch.length,
          snapshot: JSON.stringify({ ...snapshot, status: shown, last_seq: last }),
          bytes,
          finishedAt: terminal ? Math.round(log.finishedAt ?? Date.now()) : '',
          expireMs: this.#o.expireMs,
          lease: '',
          messagesTaken,
        },
        pairs,
      ),
    );
    if (outcome === 'ok') this.#stored = last + 1;
    return outcome;
  }

  #finish(outcome: WriterOutcome): void {
    this.#unsubscribe();
    this.#resolve(outcome);
  }
}
