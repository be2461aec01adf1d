import { z } from 'zod';
import { BadRequestError } from '../errors.js';
import type { OrsClient } from '../ors/client/ors-client.js';
import {
  EnvNameSchema,
  MaxTurnsSchema,
  RewardReductionSchema,
  RUN_REQUEST_DEFAULTS,
  SamplingSchema,
} from '../protocol/run-request.js';
import type { EnvCatalog } from '../runs/env-catalog.js';
import { parseTaskSelection, resolveTaskIndices, type TaskLimit } from './rollout-plan.js';

/** How long one episode of a batch may take unless the batch says otherwise: 10 minutes. */
export const DEFAULT_EPISODE_TIMEOUT_MS = 600_000;

/**
 * The settings of a rollout batch that decide what it plays, with their bounds and defaults: one
 * schema for `runbridge rollout` (`generateRollouts`, which adds where and how it writes) and for a
 * batch posted to `POST /v1/rollouts`, so both refuse and default alike.
 */
export const RolloutSettingsSchema = z.object({
  env: EnvNameSchema,
  split: z.string().min(1).optional(),
  tasks: z.union([z.string().min(1), z.array(z.number().int().nonnegative())]).optional(),
  samples: z.number().int().positive().max(100_000).default(1),
  maxTurns: MaxTurnsSchema,
  sampling: SamplingSchema.omit({ seed: true }).default({}),
  seed: z.number().int().min(Number.MIN_SAFE_INTEGER).max(Number.MAX_SAFE_INTEGER).default(0),
  instructions: z.string().optional(),
  rewardReduction: RewardReductionSchema.default(RUN_REQUEST_DEFAULTS.reward_reduction),
  retries: z.number().int().min(0).max(100).default(2),
  timeoutMs: z
    .number()
    .positive()
    .max(2 ** 31 - 1)
    .default(DEFAULT_EPISODE_TIMEOUT_MS),
});
export type RolloutSettings = z.infer<typeof RolloutSettingsSchema>;

/**
 * The temperature of a batch of several samples per task that names none. At a provider's default
 * (the offline model's is 0, as is many a server's greedy decoding) the samples of a task would often
 * be one episode played again: a GRPO group without variance, which the export then leaves out.
 */
export const SAMPLES_TEMPERATURE = 1;

/** `settings`, with {@link SAMPLES_TEMPERATURE} when it has several samples and names no temperature. */
export function withSamplesTemperature<T extends Pick<RolloutSettings, 'samples' | 'sampling'>>(settings: T): T {
  return settings.samples > 1 && settings.sampling.temperature === undefined
    ? { ...settings, sampling: { ...settings.sampling, temperature: SAMPLES_TEMPERATURE } }
    : settings;
}

/** `input` parsed by `schema` (which keeps only its own keys), or a 400 naming every problem. */
export function parseRolloutSettings<Schema extends z.ZodType>(schema: Schema, input: unknown): z.infer<Schema> {
  const parsed = schema.safeParse(input);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`);
    throw new BadRequestError(`Invalid rollout options: ${problems.join('; ')}.`, { details: parsed.error.issues });
  }
  return parsed.data;
}

/**
 * The split (the environment's first when none was named) and the task indices a batch plays, checked
 * against the ORS server through `catalog` — the bridge's, whose cached answers its runs share — : 404
 * for an unknown environment, 400 for an unknown split or tasks out of range, and 400 `batch_too_large`
 * past `limit`, judged before the selection is expanded.
 */
export async function resolveRolloutTasks(
  catalog: EnvCatalog,
  ors: Pick<OrsClient, 'numTasks'>,
  settings: Pick<RolloutSettings, 'env' | 'split' | 'tasks'>,
  signal?: AbortSignal,
  limit?: TaskLimit,
): Promise<{ split: string; indices: number[] }> {
  const requested = settings.split === undefined ? undefined : { split: settings.split, index: 0 };
  // Asked without a spec, the catalog answers a split and an index.
  const { split } = (await catalog.resolve(settings.env, requested)) as { split: string; index: number };
  const count = await ors.numTasks(settings.env, split, signal);
  const selection =
    typeof settings.tasks === 'string' ? parseTaskSelection(settings.tasks, limit) : (settings.tasks ?? [{ start: 0 }]);
  return { split, indices: resolveTaskIndices(selection, count, limit) };
}
