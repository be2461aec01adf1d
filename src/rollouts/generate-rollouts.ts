import { z } from 'zod';
import { BadRequestError } from '../errors.js';
import type { Model } from '../models/model.js';
import type { OrsClient } from '../ors/client/ors-client.js';
import type { EpisodeCaps } from '../protocol/episode-caps.js';
import type { RewardReduction, Sampling } from '../protocol/run-request.js';
import { EnvCatalog } from '../runs/env-catalog.js';
import { type EpisodePlayer, playRolloutEpisode } from './play-rollout-episode.js';
import { resolveRolloutTasks } from './resolve-rollout-tasks.js';
import { RolloutBatch, type RolloutProgress, startingProgress } from './rollout-batch.js';
import {
  configMismatches,
  manifestPathFor,
  ROLLOUT_MANIFEST_VERSION,
  type RolloutConfig,
  type RolloutManifest,
  readManifest,
  writeManifest,
} from './rollout-manifest.js';
import { formatTaskIndices, type PlannedRollout, planRollouts } from './rollout-plan.js';
import { parseRolloutSettings, RolloutSettingsSchema, withSamplesTemperature } from './rollout-settings.js';
import { DEFAULT_PASS_THRESHOLD, summarizeOutcomes } from './rollout-stats.js';
import type { RolloutStore } from './rollout-store.js';
import type { TrajectoryRecord } from './trajectory-schema.js';
import { type RolloutResult, withRolloutFile } from './with-rollout-file.js';
import { rolloutThreads } from './workers/rollout-threads.js';
import { RolloutWorkerPool } from './workers/rollout-worker-pool.js';
import type { RolloutWorkers } from './workers/rollout-worker-setup.js';

export type { RolloutProgress } from './rollout-batch.js';

/** What {@link generateRollouts} plays and where it writes. Only `ors`, `model`, `env` and `out` are required. */
export interface GenerateRolloutsOptions {
  /** The ORS server the episodes run against. */
  ors: OrsClient;
  /** What the environment and tasks are checked against; default a catalog of `ors` of this batch's own. */
  catalog?: EnvCatalog;
  /** The model every episode uses (resolve a `provider:name` with a `ModelRegistry`, or pass any `Model`). */
  model: Model;
  /**
   * Values cut out of everything the episodes write, as `[redacted]` (docs/security.md): the model's API
   * key, which its vendor may quote back, and any other secret of yours. Those under 8 characters are
   * left alone. Worker threads take theirs from their setup.
   */
  redact?: readonly string[];
  /** The ORS environment whose tasks are played. */
  env: string;
  /** Default: the environment's first split. */
  split?: string;
  /** Selection syntax (`"0:200"`, `"0:10,25"`, `"100:"`) or a list of indices; default: the whole split. */
  tasks?: string | readonly number[];
  /** Samples per task; default 1. */
  samples?: number;
  /** The JSONL file; its manifest goes beside it (`x.jsonl` → `x.manifest.json`). */
  out: string;
  /** Episodes in flight at most; default 8. */
  concurrency?: number;
  /**
   * Plays the episodes in worker threads, each with a model and ORS client its setup module builds
   * (`runbridge rollout --workers`), all started before the batch plays, or as the batch can use them
   * beside this thread (`asNeeded`); the records are the same as without. This thread alone writes the
   * file and the manifest and reports progress. Default: every episode in this thread.
   */
  workers?: RolloutWorkers;
  /** Default 20. */
  maxTurns?: number;
  /**
   * What one model turn and one tool result may put into an episode (docs/protocol.md §1.5–§1.7); unset
   * caps take their defaults (`EPISODE_CAPS`). `runbridge rollout` passes the settings'.
   */
  caps?: Partial<EpisodeCaps>;
  /**
   * Sent with every model call; each rollout adds its derived `seed`. With more than one sample and no
   * `temperature`, the temperature is `SAMPLES_TEMPERATURE` (rollout-settings.ts; the manifest says so).
   */
  sampling?: Omit<Sampling, 'seed'>;
  /** The master seed rollout seeds derive from; default 0. */
  seed?: number;
  /** A system prompt before the environment's prompt. */
  instructions?: string;
  /** Default `last`. */
  rewardReduction?: RewardReduction;
  /** Further attempts of a failed episode within the batch; default 2. */
  retries?: number;
  /** Per-rollout time limit; default 600 000 (10 min). */
  timeoutMs?: number;
  /** Run pairs whose record in the file is a failure again (default: failed pairs count as done). */
  retryFailed?: boolean;
  /** The reward at or above which an episode passes, for pass@k; default 1. */
  passThreshold?: number;
  /**
   * Which weights play the batch (a trainer's step, a checkpoint): every record carries it as
   * `policy_version` and the manifest's config names it, so a file holds one policy.
   */
  policyVersion?: string;
  /** Aborting it interrupts the batch: episodes in flight are cancelled, their sessions deleted, nothing half-written. */
  signal?: AbortSignal;
  /** Called whenever a count changes (an episode starts, ends, is retried or cancelled). */
  onProgress?: (progress: RolloutProgress) => void;
  /** Called with each record right after it is appended to the file. */
  onRecord?: (record: TrajectoryRecord) => void;
  /** Least time between manifest rewrites while the batch runs; default 1000. */
  manifestIntervalMs?: number;
  /** The clock, in epoch milliseconds; default `Date.now` (tests pass a fake one). */
  now?: () => number;
}

const SettingsSchema = RolloutSettingsSchema.extend({
  out: z.string().min(1),
  concurrency: z.number().int().positive().max(100_000).default(8),
  workers: z
    .object({
      count: z.number().int().positive().max(1024),
      asNeeded: z.boolean().default(false),
      episodesPerThread: z.number().int().positive().optional(),
      idleCores: z.number().finite().optional(),
    })
    .optional(),
  retryFailed: z.boolean().default(false),
  passThreshold: z.number().finite().default(DEFAULT_PASS_THRESHOLD),
  manifestIntervalMs: z.number().nonnegative().default(1000),
  policyVersion: z.string().min(1).max(256).optional(),
}).transform(withSamplesTemperature);
type Settings = z.infer<typeof SettingsSchema>;
/** The options of a batch, checked and defaulted (what `runbridge rollout` plays, locally or on a server). */
export type RolloutOptions = Settings;

/**
 * Plays tasks × samples episodes of one environment split with one model and writes a JSONL
 * trajectory record per finished episode to `out`, plus a manifest beside it. Resumable: pairs the
 * file already holds are skipped (failed ones too, unless `retryFailed`), and an unfinished last line
 * left by a crash is cut off. Options are checked first: a bad value, an unknown environment or split,
 * tasks out of range, or a file written with other episode settings throw a 4xx `RunbridgeError`
 * before anything runs; a file another live batch is writing throws `rollout_locked`. Once running,
 * an episode's failure never stops the batch; aborting `signal` ends it with status `interrupted`
 * after every episode in flight has been cancelled and its ORS session deleted.
 */
export async function generateRollouts(options: GenerateRolloutsOptions): Promise<RolloutResult> {
  const settings = parseSettings(options);
  const now = options.now ?? Date.now;
  const startedAt = now();
  const { split, indices } = await resolveRolloutTasks(
    options.catalog ?? new EnvCatalog(options.ors),
    options.ors,
    settings,
    options.signal,
  );
  const plan = planRollouts({
    env: settings.env,
    split,
    indices,
    samples: settings.samples,
    masterSeed: settings.seed,
  });
  const config = configOf(settings, options.model, split, indices);
  const manifestPath = manifestPathFor(settings.out);

  return withRolloutFile(settings.out, options.signal, async (store) => {
    if (store.size > 0) checkSameSettings(settings.out, readManifest(manifestPath), config);
    if (settings.retryFailed) await store.dropFailed();
    const pending = plan.filter((rollout) => store.outcome(rollout.key) === undefined);
    const specs = await fetchSpecs(options.ors, settings.env, split, pending, options.signal);
    const here: EpisodePlayer = (episode, signal) =>
      playRolloutEpisode(
        { ors: options.ors, model: options.model, now: options.now, redact: options.redact },
        episode,
        signal,
      );
    const threads = rolloutThreads(settings.workers, settings.concurrency, pending.length);
    const pool =
      options.workers === undefined || threads.workers === 0
        ? undefined
        : threads.here
          ? RolloutWorkerPool.beside({ ...options.workers, count: threads.workers }, options.model.id, here)
          : await RolloutWorkerPool.start({ ...options.workers, count: threads.workers }, options.model.id);
    const play: EpisodePlayer = pool === undefined ? here : (episode, signal) => pool.play(episode, signal);
    const progress = startingProgress(plan.length, plan.length - pending.length, startedAt);
    const manifestOf = (status: RolloutManifest['status']): RolloutManifest =>
      buildManifest({ status, out: settings.out, config, plan, store, progress, startedAt, now: now() });
    writeManifest(manifestPath, manifestOf('running'));
    let lastWrite = now();
    const batch = new RolloutBatch({
      play,
      model: options.model,
      env: settings.env,
      split,
      sampling: settings.sampling,
      maxTurns: settings.maxTurns,
      caps: options.caps,
      instructions: settings.instructions,
      rewardReduction: settings.rewardReduction,
      retries: settings.retries,
      timeoutMs: settings.timeoutMs,
      ...(settings.policyVersion === undefined ? {} : { policyVersion: settings.policyVersion }),
      concurrency: settings.concurrency,
      pending,
      specs,
      store,
      progress,
      signal: options.signal,
      onProgress: options.onProgress,
      onRecord: (record) => {
        options.onRecord?.(record);
        if (now() - lastWrite < settings.manifestIntervalMs) return;
        lastWrite = now();
        writeManifest(manifestPath, manifestOf('running'));
      },
      now,
    });
    try {
      await batch.run();
    } finally {
      await pool?.close();
    }
    return manifestOf;
  });
}

/** Checks and defaults the options of a batch; a 400 names every bad one. */
export function parseSettings(options: object): Settings {
  // The schema keeps only the settings; the client, model, signal and callbacks are left out.
  return parseRolloutSettings(SettingsSchema, options);
}

/** The task objects of the pending pairs' tasks, one `task_range` request per run of consecutive indices. */
async function fetchSpecs(
  ors: OrsClient,
  env: string,
  split: string,
  pending: readonly PlannedRollout[],
  signal: AbortSignal | undefined,
): Promise<Map<number, unknown>> {
  const indices = [...new Set(pending.map((rollout) => rollout.index))].sort((a, b) => a - b);
  const specs = new Map<number, unknown>();
  let start = 0;
  while (start < indices.length) {
    let end = start + 1;
    while (end < indices.length && indices[end] === indices[end - 1]! + 1) end++;
    const first = indices[start]!;
    const tasks = await ors.taskRange(env, split, { start: first, stop: indices[end - 1]! + 1 }, signal);
    tasks.forEach((task, offset) => specs.set(first + offset, task));
    start = end;
  }
  return specs;
}

function configOf(settings: Settings, model: Model, split: string, indices: readonly number[]): RolloutConfig {
  return {
    env: settings.env,
    split,
    tasks: formatTaskIndices(indices),
    task_count: indices.length,
    samples: settings.samples,
    model: model.id,
    sampling: settings.sampling,
    seed: settings.seed,
    max_turns: settings.maxTurns,
    instructions: settings.instructions ?? null,
    reward_reduction: settings.rewardReduction,
    concurrency: settings.concurrency,
    workers: settings.workers?.count ?? 1,
    retries: settings.retries,
    timeout_seconds: settings.timeoutMs / 1000,
    retry_failed: settings.retryFailed,
    pass_threshold: settings.passThreshold,
    ...(settings.policyVersion === undefined ? {} : { policy_version: settings.policyVersion }),
  };
}

/** Refuses to mix records of other episode settings into one file (a manifest-less file cannot be checked). */
export function checkSameSettings(out: string, previous: RolloutManifest | undefined, config: RolloutConfig): void {
  if (previous === undefined) return;
  const mismatches = configMismatches(previous.config, config);
  if (mismatches.length === 0) return;
  throw new BadRequestError(
    `${out} holds rollouts made with other settings (${mismatches.join('; ')}). Rerun with the same settings to resume, or write to another --out.`,
    { code: 'rollout_settings_mismatch', details: { mismatches } },
  );
}

/** The manifest of a batch writing `store`: its config, how far its plan got, and statistics over every record in the file. */
export function buildManifest(input: {
  status: RolloutManifest['status'];
  out: string;
  config: RolloutConfig;
  plan: readonly PlannedRollout[];
  store: RolloutStore;
  progress: RolloutProgress;
  startedAt: number;
  now: number;
}): RolloutManifest {
  const { progress, store } = input;
  let completed = 0;
  let failed = 0;
  for (const rollout of input.plan) {
    const status = store.outcome(rollout.key)?.status;
    if (status === 'completed') completed++;
    else if (status === 'failed') failed++;
  }
  const written = progress.completed + progress.failed;
  const elapsedSeconds = Math.max(0, input.now - input.startedAt) / 1000;
  return {
    schema_version: ROLLOUT_MANIFEST_VERSION,
    status: input.status,
    out: input.out,
    started_at: input.startedAt / 1000,
    updated_at: input.now / 1000,
    config: input.config,
    progress: {
      planned: input.plan.length,
      completed,
      failed,
      remaining: input.plan.length - completed - failed,
      skipped: progress.skipped,
      written,
      retried: progress.retried,
      lost_attempts: progress.lost,
      cancelled: progress.cancelled,
      torn_bytes: store.recovery.tornBytes,
      dropped_failed: store.recovery.droppedFailed,
      elapsed_seconds: elapsedSeconds,
      episodes_per_second: elapsedSeconds > 0 ? written / elapsedSeconds : 0,
    },
    results: summarizeOutcomes(store.outcomes(), input.config.pass_threshold),
  };
}
