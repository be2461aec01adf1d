import { z } from 'zod';
import { boundedObject } from '../protocol/bounded-object.js';
import { ModelRefSchema } from '../protocol/run-request.js';
import { DEFAULT_EPISODE_TIMEOUT_MS, RolloutSettingsSchema } from './rollout-settings.js';

const settings = RolloutSettingsSchema.shape;

/**
 * The body of `POST /v1/rollouts` (docs/api.md, "Rollout batches"): the settings of `runbridge rollout`
 * in the API's snake_case, strict at the top. Its fields are the settings schema's own, and the parsed
 * body goes through that schema again ({@link rolloutSettingsOf}), so a batch over HTTP is refused and
 * defaulted exactly as one on the command line.
 */
export const RolloutRequestSchema = z.strictObject({
  env: settings.env,
  split: settings.split,
  /** Selection syntax (`"0:200"`, `"0:10,25"`) or a list of indices. */
  tasks: settings.tasks.unwrap(),
  /** Samples per task. */
  samples: settings.samples.unwrap(),
  model: ModelRefSchema,
  /** Sent with every model call; each pair adds its derived `seed`. */
  sampling: settings.sampling,
  /** The master seed the pairs' seeds derive from, as `runbridge rollout --seed`. */
  seed: settings.seed,
  max_turns: settings.maxTurns,
  instructions: settings.instructions,
  reward_reduction: settings.rewardReduction,
  /** Further attempts of a pair whose episode failed. */
  retries: settings.retries,
  /** Per-episode time limit. */
  timeout_seconds: z
    .number()
    .positive()
    .default(DEFAULT_EPISODE_TIMEOUT_MS / 1000),
  /** The caller's own, echoed in the batch's snapshot. */
  metadata: boundedObject('metadata', 8, 16 * 1024).optional(),
  /** Which weights the model serves, carried by every record (an off-policy trainer tells records apart by it). */
  policy_version: z.string().min(1).max(256).optional(),
});
/** A validated `POST /v1/rollouts` body, its defaults filled in. */
export type RolloutRequest = z.infer<typeof RolloutRequestSchema>;

/** The settings schema's view of a batch request (camelCase, time limit in ms), to be parsed by it. */
export function rolloutSettingsOf(request: RolloutRequest): Record<string, unknown> {
  return {
    env: request.env,
    split: request.split,
    tasks: request.tasks,
    samples: request.samples,
    maxTurns: request.max_turns,
    sampling: request.sampling,
    seed: request.seed,
    instructions: request.instructions,
    rewardReduction: request.reward_reduction,
    retries: request.retries,
    timeoutMs: request.timeout_seconds * 1000,
  };
}
