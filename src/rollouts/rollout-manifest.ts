import { readFileSync, renameSync, writeFileSync } from 'node:fs';
import { isDeepStrictEqual } from 'node:util';
import { z } from 'zod';
import { PromptRendererSchema } from '../protocol/conversation-schema.js';
import { RewardReductionSchema, SamplingSchema } from '../protocol/run-request.js';
import type { RolloutStats } from './rollout-stats.js';

/**
 * The manifest beside a rollout file: the resolved configuration, how far the batch got, and
 * statistics over every record in the file. Rewritten (atomically) as the batch goes, so after a
 * crash it still tells what the batch was and roughly where it stood.
 */

export const ROLLOUT_MANIFEST_VERSION = 1;

/** Everything that decided what the batch plays; the settings before `concurrency` also shape each episode. */
export const RolloutConfigSchema = z.object({
  env: z.string(),
  split: z.string(),
  /** The task indices in selection syntax, e.g. `0:200`. */
  tasks: z.string(),
  task_count: z.number().int().nonnegative(),
  samples: z.number().int().positive(),
  model: z.string(),
  /** Sent with every model call; each rollout adds its own derived `seed`. */
  sampling: SamplingSchema.omit({ seed: true }),
  /** The master seed the rollout seeds derive from. */
  seed: z.number().int(),
  max_turns: z.number().int().positive(),
  instructions: z.string().nullable(),
  reward_reduction: RewardReductionSchema,
  concurrency: z.number().int().positive(),
  /** Worker threads asked for (`--workers`); absent in files written before there were any. */
  workers: z.number().int().positive().optional(),
  retries: z.number().int().nonnegative(),
  timeout_seconds: z.number().positive(),
  retry_failed: z.boolean(),
  pass_threshold: z.number(),
  /** Which weights played the batch (`--policy-version`); absent when it named none. */
  policy_version: z.string().optional(),
});
export type RolloutConfig = z.infer<typeof RolloutConfigSchema>;

/** The settings that shape an episode: a file's records must all agree on them. */
const EPISODE_SETTINGS = [
  'env',
  'split',
  'model',
  'sampling',
  'seed',
  'max_turns',
  'instructions',
  'reward_reduction',
  'policy_version',
] as const;

const count = z.number().int().nonnegative();
const seconds = z.number().nullable();

export const RolloutManifestSchema = z.object({
  schema_version: z.literal(ROLLOUT_MANIFEST_VERSION),
  /** `running` while the batch goes (or when it was killed), then `finished` or `interrupted`. */
  status: z.enum(['running', 'finished', 'interrupted']),
  /** The JSONL file this manifest describes, as given. */
  out: z.string(),
  /** Epoch seconds. */
  started_at: z.number(),
  updated_at: z.number(),
  config: RolloutConfigSchema,
  /** This batch's plan and how far it got. */
  progress: z.object({
    /** (task, sample) pairs in the plan. */
    planned: count,
    /** Pairs of the plan whose record in the file is a completed episode. */
    completed: count,
    /** Pairs of the plan whose record in the file is a failure. */
    failed: count,
    /** Pairs of the plan without a record yet. */
    remaining: count,
    /** Pairs that already had a record when the batch started, and were not run again. */
    skipped: count,
    /** Records this batch wrote. */
    written: count,
    /** Failed attempts this batch ran again (within `retries`). */
    retried: count,
    /** Attempts lost with their worker thread (`--workers`): each episode is played again once after one. */
    lost_attempts: count.default(0),
    /** Episodes in flight when the batch was interrupted: cancelled, not written, run again on resume. */
    cancelled: count,
    /** Bytes of a torn last line cut off at start. */
    torn_bytes: count,
    /** Failed records removed at start to run again (`retry_failed`). */
    dropped_failed: count,
    elapsed_seconds: z.number().nonnegative(),
    /** Records written per second of this batch. */
    episodes_per_second: z.number().nonnegative(),
  }),
  /** Statistics over every record in the file (also those of earlier batches). */
  results: z.object({
    episodes: count,
    completed: count,
    failed: count,
    mean_reward: z.number().nullable(),
    scored: count,
    pass_threshold: z.number(),
    pass_at_k: z.record(z.string(), z.number()),
    stop_reasons: z.record(z.string(), count),
    tokens: z.object({ input: count, output: count, total: count }),
    episode_seconds: z.object({ p50: seconds, p95: seconds }),
    renderers: z.array(PromptRendererSchema.extend({ episodes: count })).optional(),
  }) satisfies z.ZodType<RolloutStats>,
});
/** The manifest written beside a rollout file: the batch's settings, counts, mean reward and pass@k (docs/trajectory.md). */
export type RolloutManifest = z.infer<typeof RolloutManifestSchema>;

/** Where the manifest of rollout file `out` lives: `x.jsonl` → `x.manifest.json`, anything else gets `.manifest.json` appended. */
export function manifestPathFor(out: string): string {
  return out.endsWith('.jsonl') ? `${out.slice(0, -'.jsonl'.length)}.manifest.json` : `${out}.manifest.json`;
}

/** The manifest at `path`; undefined when there is none or it is unreadable (it is rebuilt from the records anyway). */
export function readManifest(path: string): RolloutManifest | undefined {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
  try {
    const parsed = RolloutManifestSchema.safeParse(JSON.parse(text));
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined;
  }
}

/** Writes `manifest` to `path` atomically (a sibling file renamed over it), so a reader never sees half of one. */
export function writeManifest(path: string, manifest: RolloutManifest): void {
  const temporary = `${path}.tmp-${process.pid}`;
  writeFileSync(temporary, `${JSON.stringify(manifest, null, 2)}\n`);
  renameSync(temporary, path);
}

/**
 * The episode-shaping settings in which `next` differs from `previous`, one sentence each; empty when
 * records made under `previous` may share a file with records made under `next`. Key order and
 * `undefined` entries do not count as differences.
 */
export function configMismatches(previous: RolloutConfig, next: RolloutConfig): string[] {
  const json = (value: unknown): string => JSON.stringify(value) ?? 'null';
  return EPISODE_SETTINGS.filter(
    (key) => !isDeepStrictEqual(JSON.parse(json(previous[key])), JSON.parse(json(next[key]))),
  ).map((key) => `${key} was ${json(previous[key])}, now ${json(next[key])}`);
}
