import { existsSync, mkdirSync, realpathSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { BadRequestError, RunbridgeError } from '../../errors.js';
import { type EpisodeTokens, episodeTokens, type TokenCheck } from './episode-tokens.js';
import type { ExportFormat } from './export-format-names.js';
import { hasImageContent } from './export-messages.js';
import { type ExportFilters, type GroupedRecords, groupRecords } from './group-records.js';
import { GRPO_FLOAT_PATHS, toGrpoRows } from './grpo-rows.js';
import { toJsonLine } from './json-line.js';
import { OPENAI_CHAT_FLOAT_PATHS, toOpenAiChatRow } from './openai-chat-rows.js';
import { readTrajectoryFiles } from './read-trajectory-files.js';
import { verifiersMetadata } from './verifiers-metadata.js';
import { toVerifiersRow, VERIFIERS_FLOAT_PATHS } from './verifiers-rows.js';

export { EXPORT_FORMATS, type ExportFormat } from './export-format-names.js';

/** What to export, from where, to where. */
export interface ExportOptions {
  /** Rollout JSONL files, as written by `runbridge rollout`; only read. */
  inputs: readonly string[];
  format: ExportFormat;
  /** A JSONL file for `openai-chat` and `grpo`; a directory (holding `results.jsonl` and `metadata.json`) for `verifiers`. */
  out: string;
  filters: ExportFilters;
  /** Told about what was skipped without stopping the export (an unfinished last line of an input). */
  onWarning(message: string): void;
  /** When aborted by the time the inputs are read, nothing is written and the abort reason is thrown. */
  signal?: AbortSignal;
}

/** A record whose token data the check flagged (`incomplete` or `mismatch`). */
export interface FlaggedTokens {
  rollout_id: string;
  group_id: string;
  sample_index: number;
  check: TokenCheck;
  issue: string;
}

/** What an export wrote and what it left out. */
export interface ExportResult extends Omit<GroupedRecords, 'groups'> {
  format: ExportFormat;
  /** The files written, in writing order. */
  files: string[];
  rows: number;
  groups: number;
  /** Rows per token-check verdict; all zero for `openai-chat`, which carries no token data. */
  tokenChecks: Record<TokenCheck, number>;
  flagged: FlaggedTokens[];
}

/**
 * Reads `inputs`, checks that they belong together, filters and orders them by group and sample, and
 * writes them in `format` to `out`, each file written beside itself and renamed into place, so a
 * reader never sees half an export. The same inputs and options always give byte-identical files.
 * Throws before writing anything: `NotFoundError` / `BadRequestError` for what the caller named wrong
 * (a missing input, an input given twice, an output that is an input), `ExportInputError` for inputs
 * that cannot be exported (a damaged line, overlapping or incompatible inputs).
 */
export async function exportRollouts(options: ExportOptions): Promise<ExportResult> {
  const { format, out, filters } = options;
  checkPaths(options.inputs, format, out);
  const sourced = await readTrajectoryFiles(options.inputs, options.onWarning);
  options.signal?.throwIfAborted();
  const { groups, ...counts } = groupRecords(sourced, filters, { onePolicy: format !== 'openai-chat' });
  const records = groups.flatMap((group) => group.records);
  const asParts = records.some(hasImageContent);

  const tokenChecks: Record<TokenCheck, number> = { ok: 0, mismatch: 0, incomplete: 0, none: 0 };
  const flagged: FlaggedTokens[] = [];
  const tokensOf = (record: (typeof records)[number]): EpisodeTokens => {
    const tokens = episodeTokens(record);
    tokenChecks[tokens.check]++;
    if (tokens.issue !== null) {
      const { rollout_id, group_id, sample_index } = record;
      flagged.push({ rollout_id, group_id, sample_index, check: tokens.check, issue: tokens.issue });
    }
    return tokens;
  };

  const files: string[] = [];
  // One row per record, but for grpo's one per token sequence.
  let rowCount = records.length;
  switch (format) {
    case 'openai-chat':
      files.push(
        writeAtomically(
          out,
          jsonLines(
            records.map((record) => toOpenAiChatRow(record, asParts)),
            OPENAI_CHAT_FLOAT_PATHS,
          ),
        ),
      );
      break;
    case 'grpo': {
      const rows = groups.flatMap((group) =>
        group.records.flatMap((record) =>
          toGrpoRows(record, { size: group.records.length, stats: group.stats }, tokensOf(record), asParts),
        ),
      );
      files.push(writeAtomically(out, jsonLines(rows, GRPO_FLOAT_PATHS)));
      rowCount = rows.length;
      break;
    }
    case 'verifiers': {
      const rows = groups.flatMap((group, exampleId) =>
        group.records.map((record) => toVerifiersRow(record, exampleId, tokensOf(record), asParts)),
      );
      const metadata = verifiersMetadata({ rows, groups, inputs: options.inputs, filters });
      files.push(writeAtomically(join(out, 'results.jsonl'), jsonLines(rows, VERIFIERS_FLOAT_PATHS)));
      files.push(writeAtomically(join(out, 'metadata.json'), `${JSON.stringify(metadata, null, 2)}\n`));
      break;
    }
  }
  return { format, files, ...counts, rows: rowCount, groups: groups.length, tokenChecks, flagged };
}

/** The files a format writes under `out`. */
function targetsOf(format: ExportFormat, out: string): string[] {
  return format === 'verifiers' ? [join(out, 'results.jsonl'), join(out, 'metadata.json')] : [out];
}

function checkPaths(inputs: readonly string[], format: ExportFormat, out: string): void {
  if (inputs.length === 0)
    throw new BadRequestError('Name at least one rollout file to export, e.g. rollouts/arith.jsonl.', {
      code: 'export_no_input',
    });
  const real = new Map<string, string>();
  for (const input of inputs) {
    // A missing input is reported by the reading, which names it.
    const path = realPath(input);
    if (path === undefined) continue;
    const earlier = real.get(path);
    if (earlier !== undefined)
      throw new BadRequestError(`${input} is given twice (also as ${earlier}): name each rollout file once.`, {
        code: 'export_input_repeated',
      });
    real.set(path, input);
  }
  for (const target of targetsOf(format, out)) {
    const clash = real.get(realPath(target) ?? resolve(target));
    if (clash !== undefined)
      throw new BadRequestError(
        `--out would overwrite the input ${clash}: the export never changes the rollout records; choose another --out.`,
        { code: 'export_output_is_input' },
      );
  }
  const existing = statOrUndefined(out);
  if (format === 'verifiers' && existing !== undefined && !existing.isDirectory())
    throw new BadRequestError(
      `--out ${out} is a file; a verifiers export is a directory (results.jsonl and metadata.json): name a directory.`,
      { code: 'export_output_not_directory' },
    );
  if (format !== 'verifiers' && existing?.isDirectory())
    throw new BadRequestError(`--out ${out} is a directory; a ${format} export is one JSONL file: name a file.`, {
      code: 'export_output_is_directory',
    });
}

function realPath(path: string): string | undefined {
  try {
    return realpathSync(path);
  } catch {
    return undefined;
  }
}

function statOrUndefined(path: string): ReturnType<typeof statSync> | undefined {
  try {
    return statSync(path);
  } catch {
    return undefined;
  }
}

function jsonLines(rows: readonly unknown[], floatPaths: ReadonlySet<string>): string {
  return rows.map((row) => toJsonLine(row, floatPaths)).join('');
}

/**
 * Writes `text` beside `path` and renames it over `path`. Synchronous on purpose: a signal is
 * handled between event-loop turns, so it cannot leave a temporary file behind.
 */
function writeAtomically(path: string, text: string): string {
  const temporary = join(dirname(path), `.${basename(path)}.${process.pid}.tmp`);
  try {
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(temporary, text);
    renameSync(temporary, path);
  } catch (error) {
    if (existsSync(temporary)) rmSync(temporary);
    throw new RunbridgeError(
      `Could not write ${path}: ${(error as Error).message}. Check that its folder is writable and has space.`,
      { code: 'export_output_unwritable', cause: error },
    );
  }
  return path;
}
