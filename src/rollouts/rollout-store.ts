import {
  closeSync,
  createReadStream,
  fsyncSync,
  ftruncateSync,
  mkdirSync,
  openSync,
  renameSync,
  rmSync,
  statSync,
  writeSync,
} from 'node:fs';
import { dirname } from 'node:path';
import { RunbridgeError } from '../errors.js';
import { outcomeOf, type RolloutOutcome } from './rollout-stats.js';
import { type TrajectoryRecord, TrajectoryRecordSchema } from './trajectory-schema.js';

/** What opening a rollout file had to repair, and what {@link RolloutStore.dropFailed} removed. */
export interface StoreRecovery {
  /** Bytes of an unfinished last line (a batch killed mid-write) that were cut off. */
  tornBytes: number;
  /** Failed records removed so their (task, sample) pairs run again. */
  droppedFailed: number;
}

/**
 * A rollout JSONL file: one trajectory record per line, appended as episodes finish. Opening it
 * reads what earlier batches wrote, so a batch can skip finished (task, sample) pairs. Every line is
 * written whole by one synchronous write, so a signal can never leave half a line behind; a line
 * that a crash (SIGKILL, power loss) cut short is the last one, and opening the file cuts it off.
 */
export class RolloutStore {
  /** The JSONL file. */
  readonly path: string;
  /** What opening the file repaired and what {@link RolloutStore.dropFailed} removed so far. */
  readonly recovery: StoreRecovery;
  readonly #outcomes: Map<string, RolloutOutcome>;
  /** Keys of the failed records found at open, by line number. */
  readonly #failedLines: Map<number, string>;
  #fd: number | undefined;
  #size: number;

  private constructor(
    path: string,
    outcomes: Map<string, RolloutOutcome>,
    failedLines: Map<number, string>,
    tornBytes: number,
  ) {
    this.path = path;
    this.#outcomes = outcomes;
    this.#failedLines = failedLines;
    this.recovery = { tornBytes, droppedFailed: 0 };
    this.#fd = openSync(path, 'a');
    this.#size = statSync(path).size;
  }

  /**
   * Opens (creating it and its folder if needed) the rollout file at `path` for appending, cutting
   * off an unfinished last line. A complete line that is not a valid record throws a
   * `RunbridgeError` (code `rollout_file_invalid`) naming its line: that is not a crash's doing, and
   * guessing could lose data.
   */
  static async open(path: string): Promise<RolloutStore> {
    mkdirSync(dirname(path), { recursive: true });
    // Create it if missing, so reading below always has a file.
    closeSync(openSync(path, 'a'));
    const outcomes = new Map<string, RolloutOutcome>();
    const failedLines = new Map<number, string>();
    let complete = 0;
    for await (const line of readCompleteLines(path)) {
      complete = line.end;
      if (line.text.trim() === '') continue;
      const outcome = outcomeOf(parseRecord(path, line.number, line.text));
      outcomes.set(outcome.key, outcome);
      if (outcome.status === 'failed') failedLines.set(line.number, outcome.key);
    }
    const tornBytes = statSync(path).size - complete;
    if (tornBytes > 0) {
      const fd = openSync(path, 'r+');
      try {
        ftruncateSync(fd, complete);
      } finally {
        closeSync(fd);
      }
    }
    return new RolloutStore(path, outcomes, failedLines, tornBytes);
  }

  /**
   * Removes the failed records the file held when it was opened, so their (task, sample) pairs run
   * again: the file is rewritten beside itself without them and renamed over itself. Idempotent.
   */
  async dropFailed(): Promise<void> {
    if (this.#failedLines.size === 0) return;
    this.#closeFd();
    await rewriteWithout(this.path, new Set(this.#failedLines.keys()));
    for (const key of this.#failedLines.values()) this.#outcomes.delete(key);
    this.recovery.droppedFailed += this.#failedLines.size;
    this.#failedLines.clear();
    this.#fd = openSync(this.path, 'a');
    this.#size = statSync(this.path).size;
  }

  /** The outcome of the record of (task, sample) `key`, if the file holds one. */
  outcome(key: string): RolloutOutcome | undefined {
    return this.#outcomes.get(key);
  }

  /** The outcomes of every record in the file, one per (task, sample). */
  outcomes(): IterableIterator<RolloutOutcome> {
    return this.#outcomes.values();
  }

  /** How many records the file holds. */
  get size(): number {
    return this.#outcomes.size;
  }

  /**
   * Appends `record` as one line, written whole; if the write fails partway (disk full), the file is
   * cut back to where it was and the error thrown. Returns the record's outcome.
   */
  append(record: TrajectoryRecord): RolloutOutcome {
    if (this.#fd === undefined) throw new Error(`The rollout file ${this.path} is closed; open it again to append.`);
    const bytes = Buffer.from(`${JSON.stringify(record)}\n`);
    try {
      writeAllSync(this.#fd, bytes);
    } catch (error) {
      ftruncateSync(this.#fd, this.#size);
      throw error;
    }
    this.#size += bytes.length;
    const outcome = outcomeOf(record);
    this.#outcomes.set(outcome.key, outcome);
    return outcome;
  }

  /** Flushes the file to disk and closes it; idempotent. */
  close(): void {
    this.#closeFd();
  }

  #closeFd(): void {
    if (this.#fd === undefined) return;
    const fd = this.#fd;
    this.#fd = undefined;
    try {
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
  }
}

interface Line {
  /** 1-based. */
  number: number;
  text: string;
  /** Byte offset just past the line's newline. */
  end: number;
}

/** The newline-terminated lines of the file, streamed; bytes after the last newline are not yielded. */
async function* readCompleteLines(path: string): AsyncGenerator<Line> {
  let carry = Buffer.alloc(0);
  let offset = 0;
  let number = 0;
  for await (const chunk of createReadStream(path) as AsyncIterable<Buffer>) {
    let buffer = carry.length === 0 ? chunk : Buffer.concat([carry, chunk]);
    let newline = buffer.indexOf(0x0a);
    while (newline >= 0) {
      offset += newline + 1;
      number++;
      yield { number, text: buffer.toString('utf8', 0, newline), end: offset };
      buffer = buffer.subarray(newline + 1);
      newline = buffer.indexOf(0x0a);
    }
    carry = Buffer.from(buffer);
  }
}

function parseRecord(path: string, number: number, text: string): TrajectoryRecord {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw invalidLine(path, number, `it is not JSON (${(error as Error).message})`);
  }
  const parsed = TrajectoryRecordSchema.safeParse(value);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw invalidLine(
      path,
      number,
      `it is not a trajectory record (${issue ? `${issue.path.join('.') || 'record'}: ${issue.message}` : 'invalid'})`,
    );
  }
  return parsed.data;
}

function invalidLine(path: string, number: number, why: string): RunbridgeError {
  return new RunbridgeError(
    `Line ${number} of ${path} cannot be resumed from: ${why}. Only the last line is ever repaired (a crash can cut it short); ` +
      'fix or remove this line, or write to another --out.',
    { code: 'rollout_file_invalid' },
  );
}

/** Rewrites the file without `dropped` lines: a sibling file is written and synced, then renamed over it. */
async function rewriteWithout(path: string, dropped: ReadonlySet<number>): Promise<void> {
  const temporary = `${path}.rewrite-${process.pid}`;
  const fd = openSync(temporary, 'w');
  try {
    for await (const line of readCompleteLines(path)) {
      if (!dropped.has(line.number)) writeAllSync(fd, Buffer.from(`${line.text}\n`));
    }
    fsyncSync(fd);
  } catch (error) {
    closeSync(fd);
    rmSync(temporary, { force: true });
    throw error;
  }
  closeSync(fd);
  renameSync(temporary, path);
}

/** Writes all of `bytes` (`writeSync` may write less than asked). */
function writeAllSync(fd: number, bytes: Buffer): void {
  let written = 0;
  while (written < bytes.length) written += writeSync(fd, bytes, written, bytes.length - written);
}
