import { z } from 'zod';
import { StopReasonSchema, TaskRefSchema, UsageSchema } from './run-events.js';

export const RunStatusSchema = z.enum(['queued', 'running', 'completed', 'failed', 'cancelled']);
/** Where a run is: `queued → running → completed | failed | cancelled`. */
export type RunStatus = z.infer<typeof RunStatusSchema>;

/** True once a run can change no more. */
export function isFinishedStatus(status: RunStatus): boolean {
  return status === 'completed' || status === 'failed' || status === 'cancelled';
}

/** The status snapshot of a run (CONTRACT §2); `GET /v1/runs/:id` answers it. Times are epoch seconds. */
export const RunSnapshotSchema = z.object({
  run_id: z.string(),
  status: RunStatusSchema,
  created_at: z.number(),
  updated_at: z.number(),
  env: z.string(),
  task: TaskRefSchema.nullable(),
  model: z.string(),
  metadata: z.record(z.string(), z.unknown()),
  turns: z.number().int().nonnegative(),
  usage: UsageSchema,
  reward: z.number().nullable(),
  finished: z.boolean(),
  output: z.string().nullable(),
  error: z.object({ code: z.string(), message: z.string() }).nullable(),
  /** Why a completed run stopped (`finished`, `no_tool_calls`, `max_turns`); null until it completes, and for a run that failed or was cancelled. */
  stop_reason: StopReasonSchema.nullable(),
  /** Highest `seq` in the log, or -1 while the run is queued. */
  last_seq: z.number().int(),
});
/** The status snapshot of a run, a fold over its event log; `GET /v1/runs/:id` answers it. */
export type RunSnapshot = z.infer<typeof RunSnapshotSchema>;

/** The 202 answer of `POST /v1/runs`. */
export const RunCreatedSchema = z.object({
  run_id: z.string(),
  status: RunStatusSchema,
  events_url: z.string(),
  created_at: z.number(),
});
/** The answer of `POST /v1/runs`: the run's id, status and events URL (a path on the bridge). */
export type RunCreated = z.infer<typeof RunCreatedSchema>;
