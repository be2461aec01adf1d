import { parseArgs } from 'node:util';
import { z } from 'zod';
import { RunbridgeError } from '../errors.js';
import { EXPORT_FORMATS, type ExportResult, exportRollouts } from '../rollouts/export/export-rollouts.js';
import type { TrajectoryStatus } from '../rollouts/trajectory-schema.js';
import { exitCodeForSignal, onStopSignal } from './on-stop-signal.js';

const USAGE = `runbridge rollout export — write rollout records as a file a trainer loads in one line

Usage:
  runbridge rollout export IN.jsonl [IN2.jsonl …] --format FORMAT --out PATH [options]

Formats:
  openai-chat   a JSONL file, one episode per row: messages + tools (TRL SFT, chat datasets)
  verifiers     a directory holding results.jsonl + metadata.json, the layout of PrimeIntellect's verifiers
  grpo          a JSONL file, one episode per row: group_id, reward, group mean and std, advantage, tokens

Options:
  --format FORMAT            openai-chat | verifiers | grpo (required)
  --out PATH                 the file (openai-chat, grpo) or directory (verifiers) to write (required)
  --status STATUS            only episodes with this status: completed | failed
  --min-group-variance V     only groups whose reward variance is greater than V (0 drops the groups
                             whose samples all scored the same)
  --help                     show this text

The inputs are only read. Rows come in order of environment, split, task and sample; the same inputs
give byte-identical output. verifiers and grpo exports need one model and one sampling configuration.
Exit code: 0 when written, 2 for bad options or inputs named wrong (a missing file, one given twice,
an --out that is an input), 3 when the inputs cannot be exported (a damaged line, overlapping or
incompatible inputs, an unwritable --out; the reason is on stderr), 130 / 143 when interrupted by
SIGINT / SIGTERM (nothing is written).`;

/** Token-check findings printed one per line at most; the rest are counted (every row carries its own). */
const MAX_FLAGGED_LINES = 20;

const FlagsSchema = z.object({
  format: z.enum(EXPORT_FORMATS, {
    error: (issue) =>
      issue.input === undefined
        ? `is required: one of ${EXPORT_FORMATS.join(', ')}`
        : `must be one of ${EXPORT_FORMATS.join(', ')}; got "${String(issue.input)}"`,
  }),
  out: z.string({ error: 'is required: the file (or, for verifiers, the directory) to write' }).min(1),
  status: z
    .enum(['completed', 'failed'] satisfies TrajectoryStatus[], {
      error: (issue) => `must be completed or failed; got "${String(issue.input)}"`,
    })
    .optional(),
  'min-group-variance': z.coerce
    .number({ error: (issue) => `must be a number such as 0; got "${String(issue.input)}"` })
    .min(0, 'must be 0 or more')
    .refine(Number.isFinite, 'must be a finite number')
    .optional(),
});

/** What {@link runRolloutExportCommand} talks to; {@link rolloutExportCommand} passes the process's own. */
export interface RolloutExportIo {
  stdout(text: string): void;
  stderr(text: string): void;
  /** Calls `listener` with the signal's name when the process is asked to stop; returns a function that stops listening. */
  onStop(listener: (signal: NodeJS.Signals) => void): () => void;
}

/** `runbridge rollout export …` (see USAGE), with the process's output and signals. */
export function rolloutExportCommand(args: string[]): Promise<number> {
  return runRolloutExportCommand(args, {
    stdout: (text) => process.stdout.write(text),
    stderr: (text) => process.stderr.write(text),
    onStop: onStopSignal,
  });
}

/** {@link rolloutExportCommand} with its output and stop trigger passed in. */
export async function runRolloutExportCommand(args: string[], io: RolloutExportIo): Promise<number> {
  const usageError = (message: string) => {
    io.stderr(`runbridge rollout export: ${message}\n\nRun "runbridge rollout export --help" for the options.\n`);
    return 2;
  };
  let parsedArgs: ReturnType<typeof parse>;
  try {
    parsedArgs = parse(args);
  } catch (error) {
    return usageError((error as Error).message);
  }
  if (parsedArgs.values.help) {
    io.stdout(`${USAGE}\n`);
    return 0;
  }
  const parsed = FlagsSchema.safeParse(parsedArgs.values);
  if (!parsed.success) {
    return usageError(parsed.error.issues.map((issue) => `--${issue.path.join('.')} ${issue.message}`).join('; '));
  }
  const flags = parsed.data;

  const controller = new AbortController();
  let stoppedBy: NodeJS.Signals | undefined;
  const stopListening = io.onStop((signal) => {
    stoppedBy = signal;
    controller.abort();
  });
  try {
    const result = await exportRollouts({
      inputs: parsedArgs.positionals,
      format: flags.format,
      out: flags.out,
      filters: { status: flags.status, minGroupVariance: flags['min-group-variance'] },
      onWarning: (message) => io.stderr(`warning: ${message}\n`),
      signal: controller.signal,
    });
    reportFlagged(result, io);
    io.stdout(summarise(result, parsedArgs.positionals.length));
    return 0;
  } catch (error) {
    if (controller.signal.aborted) {
      io.stderr(`${stoppedBy ?? 'Interrupted'}: stopped before writing; nothing was written.\n`);
      return exitCodeForSignal(stoppedBy ?? 'SIGINT');
    }
    if (error instanceof RunbridgeError && (error.status === 400 || error.status === 404))
      return usageError(error.message);
    io.stderr(`runbridge rollout export: ${error instanceof Error ? error.message : String(error)}\n`);
    return 3;
  } finally {
    stopListening();
  }
}

function parse(args: string[]) {
  return parseArgs({
    args,
    strict: true,
    allowPositionals: true,
    options: {
      format: { type: 'string' },
      out: { type: 'string' },
      status: { type: 'string' },
      'min-group-variance': { type: 'string' },
      help: { type: 'boolean' },
    },
  });
}

function reportFlagged(result: ExportResult, io: RolloutExportIo): void {
  for (const item of result.flagged.slice(0, MAX_FLAGGED_LINES)) {
    io.stderr(
      `token data of ${item.group_id} sample ${item.sample_index} (${item.rollout_id}): ${item.check}: ${item.issue}\n`,
    );
  }
  const more = result.flagged.length - MAX_FLAGGED_LINES;
  if (more > 0) io.stderr(`… and ${more} more record(s) flagged; each row's token_check and token_issue say why.\n`);
}

function summarise(result: ExportResult, inputs: number): string {
  const lines = [
    `wrote ${result.rows} row(s) in ${result.groups} group(s) from ${result.read} record(s) in ${inputs} file(s), ` +
      `format ${result.format}: ${result.files.join(', ')}`,
  ];
  if (result.droppedByStatus > 0) lines.push(`left out ${result.droppedByStatus} record(s) by --status`);
  if (result.droppedGroups > 0)
    lines.push(
      `left out ${result.droppedGroups} group(s) (${result.droppedByVariance} record(s)) by --min-group-variance`,
    );
  if (result.format !== 'openai-chat') {
    const { ok, mismatch, incomplete, none } = result.tokenChecks;
    lines.push(
      `token data: ${ok} ok, ${mismatch} mismatch, ${incomplete} incomplete, ${none} without token ids` +
        (mismatch + incomplete > 0 ? ' (see token_check and token_issue)' : ''),
    );
  }
  if (result.rows === 0) lines.push('no record passed the filters: the export is empty');
  if (result.rows === 0 && result.droppedGroups > 0) {
    lines.push(
      "every group's samples scored the same: play them at a temperature above 0 so they differ " +
        '(runbridge rollout samples at 1 with --samples above 1 unless --temperature says otherwise)',
    );
  }
  return `${lines.join('\n')}\n`;
}
