import { z } from 'zod';
import { RolloutConfigSchema, RolloutManifestSchema } from './rollout-manifest-schema.js';

/** Where a service batch stands: waiting for its first pair, playing, every pair recorded, or cancelled. */
export const RolloutStatusSchema = z.enum(['queued', 'running', 'completed', 'cancelled']);
export type RolloutStatus = z.infer<typeof RolloutStatusSchema>;

/**
 * The `end` event of a batch's records over SSE (docs/protocol.md §14.3): sent once the batch has ended
 * and every record is out, with the status it ended with. A batch forgotten under its reader has none.
 */
export const RecordsEndSchema = z.object({ rollout_id: z.string(), status: RolloutStatusSchema });
export type RecordsEnd = z.infer<typeof RecordsEndSchema>;

const count = z.number().int().nonnegative();
const seconds = z.number().nullable();

/**
 * `GET /v1/rollouts/:id` (docs/api.md, "Rollout batches"): a batch's counts and statistics so far, with the
 * configuration and results fields of the manifest `runbridge rollout` writes. Counts are of pairs:
 * `completed` and `failed` are recorded, `running` and `queued` are not yet.
 */
export const RolloutSnapshotSchema = z.object({
  rollout_id: z.string(),
  status: RolloutStatusSchema,
  /** Epoch seconds. */
  created_at: z.number(),
  /** When its first recorded episode started; null before the first record. */
  started_at: seconds,
  /** When its last pair was recorded, or it was cancelled. */
  finished_at: seconds,
  total: count,
  completed: count,
  failed: count,
  running: count,
  queued: count,
  /**
   * Attempts of the recorded pairs that ended with the instance playing them (`instance_lost`): each
   * such pair is played again once, and recorded as failed after a second.
   */
  lost_attempts: count,
  /** Mean reward of the completed records (an unscored one counts as 0); null before the first. */
  mean_reward: z.number().nullable(),
  pass_at_k: z.record(z.string(), z.number()),
  policy_version: z.string().nullable(),
  metadata: z.record(z.string(), z.unknown()),
  /** The manifest's `config`, but for what only a local batch has (its concurrency, `--retry-failed`). */
  config: RolloutConfigSchema.omit({ concurrency: true, retry_failed: true }),
  /** The manifest's `results`, over the records so far. */
  results: RolloutManifestSchema.shape.results,
  records_url: z.string(),
  /**
   * Why a batch was stopped before its pairs were all recorded, other than a cancel: its next record did
   * not fit in the stored bytes (`key_store_full`, `store_full`). Null otherwise.
   */
  error: z
    .object({ code: z.enum(['key_store_full', 'store_full']), message: z.string() })
    .nullable()
    .optional(),
});
export type RolloutSnapshot = z.infer<typeof RolloutSnapshotSchema>;

/** `POST /v1/rollouts`: 202 with the new batch (200 with the one an `Idempotency-Key` names). */
export const RolloutCreatedSchema = RolloutSnapshotSchema.pick({ rollout_id: true, status: true, records_url: true });
export type RolloutCreated = z.infer<typeof RolloutCreatedSchema>;

/** `POST /v1/rollouts/:id/cancel`. */
export const RolloutCancelAnswerSchema = RolloutSnapshotSchema.pick({ rollout_id: true, status: true });

/** `GET /v1/rollouts`: one page of the caller's batches, newest first. */
export const RolloutListSchema = z.object({ data: z.array(RolloutSnapshotSchema), next: z.string().nullable() });
