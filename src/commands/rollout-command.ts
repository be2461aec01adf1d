import { availableParallelism, loadavg } from 'node:os';
import { z } from 'zod';
import { bridgeSecretsOf } from '../bridge-secrets-of.js';
import { ConfigError, episodeCaps, loadConfig } from '../config/index.js';
import { configuredModel } from '../configured-model.js';
import { connectOrs } from '../connect-ors.js';
import { RunbridgeError } from '../errors.js';
import type { ModelProvider } from '../models/model.js';
import type { AnyEnvironment } from '../ors/server/environment-registry.js';
import { EnvNameSchema, ModelRefSchema, RewardReductionSchema } from '../protocol/run-request.js';
import { generateRollouts, type RolloutProgress } from '../rollouts/generate-rollouts.js';
import { formatDuration, ProgressDisplay, type ProgressOutput } from '../rollouts/progress-display.js';
import { remoteRollouts } from '../rollouts/remote-rollouts.js';
import type { RolloutResult } from '../rollouts/with-rollout-file.js';
import { EnvCatalog } from '../runs/env-catalog.js';
import { exitCodeForSignal, onStopSignal } from './on-stop-signal.js';
import { parseFlags } from './parse-flags.js';
import { rolloutExportCommand } from './rollout-export-command.js';
import { rolloutWorkersOf } from './rollout-workers-of.js';

const USAGE = `runbridge rollout — play many ORS episodes and write one JSONL trajectory record per episode

Usage:
  runbridge rollout --out FILE.jsonl [options]
  runbridge rollout export IN.jsonl [IN2.jsonl …] --format FORMAT --out PATH   (see "runbridge rollout export --help")

Options:
  --env NAME               ORS environment (default: RUNBRIDGE_DEFAULT_ENV, arith)
  --split NAME             task split (default: the environment's first split)
  --tasks SELECTION        task indices: 0:200 (stop exclusive), 7, 100:, or several joined by commas (default: the whole split)
  --samples N              episodes per task (default 1)
  --model REF              provider:name, e.g. offline, openai:gpt-4.1-mini (default: RUNBRIDGE_MODEL)
  --concurrency N          episodes in flight at most (default 8)
  --workers N              worker threads playing the episodes (default: RUNBRIDGE_ROLLOUT_WORKERS, else one a core,
                           started only as the batch can use them); 1 plays them in this thread. The records are the same either way
  --out FILE               the JSONL file (required); its manifest goes beside it (FILE.manifest.json)
  --max-turns N            model turns per episode at most (default 20)
  --temperature X          sampling temperature (default: 1 with --samples above 1, else the provider's)
  --seed N                 master seed; each rollout's seed derives from it, the task and the sample (default 0)
  --extra-body JSON        object passed to the provider verbatim, e.g. '{"logprobs": true}'
  --policy-version V       which weights play the batch (a trainer's step); every record and the manifest name it
  --instructions TEXT      system prompt before the environment's prompt
  --reward-reduction R     last | sum | mean | max: how tool-call rewards reduce to the episode's (default last)
  --retries N              further attempts of a failed episode within the batch (default 2)
  --timeout-seconds S      time limit of one episode (default 600)
  --retry-failed           run the pairs whose record in FILE is a failure again
  --ors-url URL            a remote ORS server (default: ORS_URL, else the built-in one in this process)
  --server URL             submit the batch to a bridge (or a cluster behind one URL) and stream its
                           records into --out, instead of playing it in this process
  --api-key KEY            bearer key for --server (default: RUNBRIDGE_API_KEY)
  --help                   show this text

Rerunning with the same --out resumes: finished (task, sample) pairs are skipped; with --server, the
rerun resumes the same batch on the bridge and never writes a record twice.
Exit code: 0 when every pair completed, 1 when some failed (rerun with --retry-failed), 2 for bad
options, 3 when the batch could not run (a locked or damaged file, an unreachable ORS server; the
reason is on stderr), 130 / 143 when interrupted by SIGINT / SIGTERM (episodes in flight are
cancelled; rerun to resume).`;

const integer = z.coerce.number().int();
const FlagsSchema = z.object({
  env: EnvNameSchema.optional(),
  split: z.string().min(1).optional(),
  tasks: z.string().min(1).optional(),
  samples: integer.positive().optional(),
  model: ModelRefSchema.optional(),
  concurrency: integer.positive().optional(),
  workers: integer.positive().max(1024).optional(),
  out: z.string({ error: 'is required: say where to write the records, e.g. --out rollouts/arith.jsonl' }).min(1),
  'max-turns': integer.min(1).max(1000).optional(),
  temperature: z.coerce.number().min(0).max(2).optional(),
  seed: integer.min(Number.MIN_SAFE_INTEGER).max(Number.MAX_SAFE_INTEGER).optional(),
  'extra-body': z
    .string()
    .transform((text, ctx) => {
      try {
        const value: unknown = JSON.parse(text);
        if (value !== null && typeof value === 'object' && !Array.isArray(value))
          return value as Record<string, unknown>;
      } catch {
        // Reported below, like any other value that is not an object.
      }
      ctx.addIssue({
        code: 'custom',
        message: `must be a JSON object, e.g. '{"logprobs": true}'; got ${text.slice(0, 80)}`,
      });
      return z.NEVER;
    })
    .optional(),
  instructions: z.string().optional(),
  'policy-version': z.string().min(1).max(256).optional(),
  'reward-reduction': RewardReductionSchema.optional(),
  retries: integer.min(0).max(100).optional(),
  'timeout-seconds': z.coerce.number().positive().max(2_000_000).optional(),
  'retry-failed': z.boolean().optional(),
  'ors-url': z.url({ protocol: /^https?$/ }).optional(),
  server: z.url({ protocol: /^https?$/ }).optional(),
  'api-key': z.string().min(1).optional(),
});

/** What {@link runRolloutCommand} talks to; {@link rolloutCommand} passes the process's own. */
export interface RolloutCommandIo {
  /** Environment variables (configuration). */
  env: Record<string, string | undefined>;
  /** Progress and the summary go here; a terminal gets a live bar, anything else plain lines. */
  stdout: ProgressOutput;
  stderr(text: string): void;
  /** Calls `listener` with the signal's name when the process is asked to stop; returns a function that stops listening. */
  onStop(listener: (signal: NodeJS.Signals) => void): () => void;
  /**
   * Model providers added to the configured ones, replacing those of their names (tests use the offline
   * model without token delays). They live in this thread: with them, the episodes are played here (`--workers 1`).
   */
  providers?: ModelProvider[];
  /** Environments for the built-in ORS server instead of the built-in ones; like `providers`, they keep the episodes in this thread. */
  environments?: AnyEnvironment[];
}

/**
 * `runbridge rollout …`: plays tasks × samples episodes and writes JSONL trajectories (see USAGE);
 * `runbridge rollout export …` hands over to `rolloutExportCommand`.
 * SIGINT/SIGTERM cancel the episodes in flight — no half line is written, every ORS session is
 * deleted, the manifest says how far the batch got — and exit 130/143; a second signal exits at once.
 */
export function rolloutCommand(args: string[]): Promise<number> {
  if (args[0] === 'export') return rolloutExportCommand(args.slice(1));
  return runRolloutCommand(args, {
    env: process.env,
    stdout: process.stdout,
    stderr: (text) => process.stderr.write(text),
    // A second signal means "now": lines are whole already; a remote server reaps the sessions.
    onStop: onStopSignal,
  });
}

/** {@link rolloutCommand} with its configuration, output, stop trigger and adapters passed in. */
export async function runRolloutCommand(args: string[], io: RolloutCommandIo): Promise<number> {
  const usageError = (message: string) => {
    io.stderr(`runbridge rollout: ${message}\n\nRun "runbridge rollout --help" for the options.\n`);
    return 2;
  };
  let values: ReturnType<typeof parse>['values'];
  try {
    values = parse(args).values;
  } catch (error) {
    return usageError((error as Error).message);
  }
  if (values.help) {
    io.stdout.write(`${USAGE}\n`);
    return 0;
  }
  const parsed = FlagsSchema.safeParse(values);
  if (!parsed.success) {
    return usageError(parsed.error.issues.map((issue) => `--${issue.path.join('.')} ${issue.message}`).join('; '));
  }
  const flags = parsed.data;
  if (
    flags.server !== undefined &&
    (flags['retry-failed'] || flags['ors-url'] !== undefined || flags.workers !== undefined)
  ) {
    return usageError(
      '--retry-failed, --ors-url and --workers apply to a batch played here, not to one sent to --server.',
    );
  }

  type Play = (signal: AbortSignal, onProgress: (progress: RolloutProgress) => void) => Promise<RolloutResult>;
  let play: Play;
  let closeOrs = async (): Promise<void> => undefined;
  try {
    const env = { ...io.env, ...(flags['ors-url'] === undefined ? {} : { ORS_URL: flags['ors-url'] }) };
    const config = loadConfig(env);
    const settings = {
      split: flags.split,
      tasks: flags.tasks,
      samples: flags.samples,
      out: flags.out,
      concurrency: flags.concurrency,
      maxTurns: flags['max-turns'],
      caps: episodeCaps(config),
      sampling: {
        ...(flags.temperature === undefined ? {} : { temperature: flags.temperature }),
        ...(flags['extra-body'] === undefined ? {} : { extra_body: flags['extra-body'] }),
      },
      seed: flags.seed,
      instructions: flags.instructions,
      policyVersion: flags['policy-version'],
      rewardReduction: flags['reward-reduction'],
      retries: flags.retries,
      timeoutMs: flags['timeout-seconds'] === undefined ? undefined : flags['timeout-seconds'] * 1000,
    };
    if (flags.server !== undefined) {
      const server = flags.server;
      const apiKey = flags['api-key'] ?? io.env.RUNBRIDGE_API_KEY;
      // The bridge resolves the model; what this side would default to is what the user would expect.
      const model = flags.model ?? config.defaultModel;
      play = (signal, onProgress) =>
        remoteRollouts({
          ...settings,
          server,
          ...(apiKey === undefined ? {} : { apiKey }),
          model,
          env: flags.env,
          signal,
          onProgress,
        });
    } else {
      const { model, providers } = await configuredModel(config, flags.model, io.providers);
      const { ors, orsServer } = await connectOrs(config, io.environments);
      closeOrs = async () => orsServer?.close();
      const catalog = new EnvCatalog(ors, { defaultEnv: config.defaultEnv });
      play = async (signal, onProgress) =>
        generateRollouts({
          ...settings,
          ors,
          catalog,
          model,
          redact: bridgeSecretsOf(config, providers),
          env: flags.env ?? (await catalog.defaultEnv()),
          retryFailed: flags['retry-failed'],
          workers: rolloutWorkersOf({
            flag: flags.workers,
            env: io.env,
            configured: config.rolloutWorkers,
            playsHere: io.providers !== undefined || io.environments !== undefined,
            idleCores: availableParallelism() - loadavg()[0]!,
            data: { env, model: flags.model },
          }),
          signal,
          onProgress,
        });
    }
  } catch (error) {
    if (error instanceof ConfigError || isUsageError(error)) return usageError((error as Error).message);
    throw error;
  }

  const controller = new AbortController();
  let stoppedBy: NodeJS.Signals | undefined;
  const stopListening = io.onStop((signal) => {
    stoppedBy = signal;
    io.stderr(
      flags.server === undefined
        ? `\n${signal}: cancelling the episodes in flight and closing their sessions (send it again to exit at once)…\n`
        : `\n${signal}: no longer reading the batch; it goes on on the bridge, and the same command resumes it…\n`,
    );
    controller.abort();
  });
  const display = new ProgressDisplay({ output: io.stdout });
  try {
    const result = await play(controller.signal, (progress) => display.update(progress));
    display.stop();
    io.stdout.write(summarise(result, stoppedBy));
    if (result.status === 'interrupted') return exitCodeOf(stoppedBy);
    return result.manifest.progress.failed === 0 ? 0 : 1;
  } catch (error) {
    display.stop();
    if (controller.signal.aborted) {
      io.stderr(`${stoppedBy ?? 'Interrupted'} before the batch started; nothing was run.\n`);
      return exitCodeOf(stoppedBy);
    }
    if (isUsageError(error)) return usageError((error as Error).message);
    // Not the caller's options and not the episodes: a pipeline must tell this apart from exit 1,
    // where the batch ran and some episodes failed.
    io.stderr(
      `runbridge rollout: the batch could not run: ${error instanceof Error ? error.message : String(error)}\n`,
    );
    return 3;
  } finally {
    stopListening();
    await closeOrs();
  }
}

function parse(args: string[]) {
  return parseFlags({
    args,
    options: {
      env: { type: 'string' },
      split: { type: 'string' },
      tasks: { type: 'string' },
      samples: { type: 'string' },
      model: { type: 'string' },
      concurrency: { type: 'string' },
      workers: { type: 'string' },
      out: { type: 'string' },
      'max-turns': { type: 'string' },
      temperature: { type: 'string' },
      seed: { type: 'string' },
      'extra-body': { type: 'string' },
      instructions: { type: 'string' },
      'policy-version': { type: 'string' },
      'reward-reduction': { type: 'string' },
      retries: { type: 'string' },
      'timeout-seconds': { type: 'string' },
      'retry-failed': { type: 'boolean' },
      'ors-url': { type: 'string' },
      server: { type: 'string' },
      'api-key': { type: 'string' },
      help: { type: 'boolean' },
    },
  });
}

/** A mistake in what the caller asked for (bad value, unknown environment, model or split): exit 2. */
function isUsageError(error: unknown): boolean {
  return error instanceof RunbridgeError && (error.status === 400 || error.status === 404);
}

function exitCodeOf(signal: NodeJS.Signals | undefined): number {
  return exitCodeForSignal(signal ?? 'SIGINT');
}

function summarise(result: RolloutResult, stoppedBy: NodeJS.Signals | undefined): string {
  const { progress, results } = result.manifest;
  const lines: string[] = [];
  if (progress.torn_bytes > 0)
    lines.push(
      `repaired ${result.out}: cut off an unfinished last line (${progress.torn_bytes} bytes) left by a crash`,
    );
  if (progress.dropped_failed > 0)
    lines.push(`removed ${progress.dropped_failed} failed record(s) to run them again (--retry-failed)`);
  lines.push(
    `wrote ${progress.written} record(s) to ${result.out} in ${formatDuration(progress.elapsed_seconds)} ` +
      `(${progress.episodes_per_second.toFixed(2)} episodes/s); ${progress.skipped} pair(s) were already done`,
  );
  const passAt = Object.entries(results.pass_at_k)
    .map(([k, value]) => `pass@${k} ${value.toFixed(3)}`)
    .join(' · ');
  lines.push(
    `file: ${results.episodes} episode(s), ${results.completed} completed, ${results.failed} failed · mean reward ` +
      `${results.mean_reward === null ? '–' : results.mean_reward.toFixed(3)}${passAt === '' ? '' : ` · ${passAt}`}`,
  );
  if (result.status === 'interrupted') {
    lines.push(
      `interrupted${stoppedBy ? ` by ${stoppedBy}` : ''}: ${progress.completed + progress.failed} of ${progress.planned} pair(s) recorded, ` +
        `${progress.cancelled} episode(s) in flight cancelled; rerun the same command to resume`,
    );
  } else if (progress.failed > 0) {
    lines.push(`${progress.failed} of ${progress.planned} pair(s) failed; rerun with --retry-failed to run them again`);
  }
  lines.push(`manifest: ${result.manifestPath}`);
  return `${lines.join('\n')}\n`;
}
