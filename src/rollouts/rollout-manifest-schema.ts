import { z } from 'zod';
import { PromptRendererSchema } from '../protocol/conversation-schema.js';
import { RewardReductionSchema, SamplingSchema } from '../protocol/run-request.js';

/**
 * The manifest beside a rollout file: the resolved configuration, how far the batch got, and
 * statistics over every record in the file. The schemas alone, without reading or writing one, so the
 * route declarations can show a batch's snapshot without loading Node's file system.
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
  }),
});
/** The manifest written beside a rollout file: the batch's settings, counts, mean reward and pass@k (docs/trajectory.md). */
export type RolloutManifest = z.infer<typeof RolloutManifestSchema>;
