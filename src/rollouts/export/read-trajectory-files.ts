import { closeSync, createReadStream, openSync, readSync, statSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { BadRequestError, NotFoundError } from '../../errors.js';
import { TRAJECTORY_SCHEMA_VERSION, type TrajectoryRecord, TrajectoryRecordSchema } from '../trajectory-schema.js';
import { ExportInputError } from './export-input-error.js';

/** A record and where it was read, so errors about it can name its file and line. */
export interface SourcedRecord {
  record: TrajectoryRecord;
  /** The input path as given. */
  file: string;
  /** 1-based line number. */
  line: number;
}

/**
 * Reads every record of the rollout files at `paths`, in order, checking each line against the
 * trajectory schema; the files are only read, never changed. A missing path is a `NotFoundError`,
 * a directory a `BadRequestError`; a line that is not a valid record is an {@link ExportInputError}
 * (`rollout_file_invalid`) naming file and line — except an invalid last line without its newline,
 * which a batch killed mid-write leaves behind: it is skipped and reported through `onWarning`,
 * as `runbridge rollout` would cut it off when it opens the file again.
 */
export async function readTrajectoryFiles(
  paths: readonly string[],
  onWarning: (message: string) => void,
): Promise<SourcedRecord[]> {
  const records: SourcedRecord[] = [];
  for (const path of paths) {
    const size = sizeOf(path);
    const endsWithNewline = size === 0 || lastByte(path, size) === 0x0a;
    const lines = createInterface({ input: createReadStream(path), crlfDelay: Number.POSITIVE_INFINITY });
    let number = 0;
    let pending: { number: number; text: string } | undefined;
    try {
      for await (const text of lines) {
        number++;
        // Held back one line: only the last one may be an unfinished write.
        if (pending) records.push(parseLine(path, pending.number, pending.text));
        pending = text.trim() === '' ? undefined : { number, text };
      }
    } catch (error) {
      if (error instanceof ExportInputError) throw error;
      throw new ExportInputError(`Could not read ${path}: ${(error as Error).message}.`, 'export_input_unreadable');
    }
    if (pending === undefined) continue;
    if (endsWithNewline) {
      records.push(parseLine(path, pending.number, pending.text));
      continue;
    }
    try {
      records.push(parseLine(path, pending.number, pending.text));
    } catch {
      onWarning(
        `${path}: skipped line ${pending.number}, an unfinished record (${Buffer.byteLength(pending.text)} bytes ` +
          'without a newline) left by a batch that was killed while writing it; the file itself is unchanged ' +
          '(runbridge rollout with the same --out cuts the line off and plays that episode again).',
      );
    }
  }
  return records;
}

function sizeOf(path: string): number {
  let stats: ReturnType<typeof statSync>;
  try {
    stats = statSync(path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT')
      throw new NotFoundError(
        `${path} does not exist: name rollout files written by runbridge rollout.`,
        'export_input_missing',
      );
    throw new ExportInputError(`Could not read ${path}: ${(error as Error).message}.`, 'export_input_unreadable');
  }
  if (stats.isDirectory())
    throw new BadRequestError(`${path} is a directory: name the rollout JSONL files inside it.`, {
      code: 'export_input_directory',
    });
  return stats.size;
}

function lastByte(path: string, size: number): number {
  const fd = openSync(path, 'r');
  try {
    const byte = Buffer.alloc(1);
    readSync(fd, byte, 0, 1, size - 1);
    return byte[0]!;
  } finally {
    closeSync(fd);
  }
}

function parseLine(path: string, line: number, text: string): SourcedRecord {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw invalidLine(path, line, `it is not JSON (${(error as Error).message})`);
  }
  const version = (value as { schema_version?: unknown } | null)?.schema_version;
  if (typeof version === 'number' && version !== TRAJECTORY_SCHEMA_VERSION) {
    throw new ExportInputError(
      `${path} line ${line}: the record has schema_version ${version}; this runbridge reads version ` +
        `${TRAJECTORY_SCHEMA_VERSION}. Use a runbridge release that reads that version. Nothing was written.`,
      'rollout_file_invalid',
    );
  }
  const parsed = TrajectoryRecordSchema.safeParse(value);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const where = issue ? `${issue.path.join('.') || 'record'}: ${issue.message}` : 'invalid';
    throw invalidLine(path, line, `it is not a trajectory record (${where})`);
  }
  return { record: parsed.data, file: path, line };
}

function invalidLine(path: string, line: number, why: string): ExportInputError {
  return new ExportInputError(
    `${path} line ${line}: ${why}. Nothing was written. Is this a rollout file written by runbridge rollout? ` +
      'Fix or remove that line (the export never changes its inputs), then run the export again.',
    'rollout_file_invalid',
  );
}
