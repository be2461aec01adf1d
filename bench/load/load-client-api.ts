import { z } from 'zod';
import type { BenchChild } from '../support/bench-child.js';

/**
 * The calls the load client process answers, as zod schemas shared by both sides, and the parent's
 * typed wrapper around them.
 */

export const OpenStreamsParamsSchema = z.object({ url: z.string(), count: z.number().int().positive() });
export const OpenStreamsResultSchema = z.object({ job: z.number().int() });

export const FinishStreamsParamsSchema = z.object({ job: z.number().int(), keepBody: z.boolean().default(false) });
export const FinishStreamsResultSchema = z.object({
  streams: z.number().int(),
  /** Events dispatched over all streams. */
  events: z.number().int(),
  /** Streams whose last event was a terminal one. */
  complete: z.number().int(),
  /** `process.hrtime.bigint()` (ns) when the last stream ended, as a decimal string. */
  endedAt: z.string(),
  /** The first stream's whole body, when asked for. */
  body: z.string().nullable(),
});
export type FinishStreamsResult = z.infer<typeof FinishStreamsResultSchema>;

export const DriveRunsParamsSchema = z.object({
  baseUrl: z.string(),
  /** The `POST /v1/runs` body; `task` defaults to task (run number mod the split size) of `train`. */
  body: z.record(z.string(), z.unknown()),
  runs: z.number().int().positive(),
  concurrency: z.number().int().positive(),
});
export const DriveRunsResultSchema = z.object({
  /** From the first POST to the end of the last stream; connections are opened beforehand, untimed. */
  elapsedMs: z.number(),
  completed: z.number().int(),
  failed: z.number().int(),
  /** Turns of the completed runs, from their `run.completed` events. */
  turns: z.number().int(),
  firstError: z.string().nullable(),
});
export type DriveRunsResult = z.infer<typeof DriveRunsResultSchema>;

export const FirstEventParamsSchema = z.object({
  baseUrl: z.string(),
  /** Where the subscriber connects; default `baseUrl` (another instance of a cluster, to time the way through the store). */
  eventsBaseUrl: z.string().optional(),
  body: z.record(z.string(), z.unknown()),
  samples: z.number().int().positive(),
});
export const FirstEventResultSchema = z.object({ samplesMs: z.array(z.number()) });

/** The parent's view of the load client process. */
export class LoadClient {
  constructor(private readonly child: BenchChild) {}

  /** Opens `count` subscribers of `url`; resolves once all have their headers, with the job to finish. */
  async openStreams(url: string, count: number): Promise<number> {
    return (await this.child.call('openStreams', { url, count }, OpenStreamsResultSchema)).job;
  }

  /** Waits for the streams of `job` to end and checks them (see `FinishStreamsResultSchema`). */
  finishStreams(job: number, keepBody = false): Promise<FinishStreamsResult> {
    return this.child.call('finishStreams', { job, keepBody }, FinishStreamsResultSchema);
  }

  /** Plays `runs` runs through the API, `concurrency` at a time, each read to its end by one subscriber. */
  driveRuns(params: z.input<typeof DriveRunsParamsSchema>): Promise<DriveRunsResult> {
    return this.child.call('driveRuns', params, DriveRunsResultSchema);
  }

  /** Time from `POST /v1/runs` to the first bytes of `run.started`, `samples` times in a row (ms). */
  async timeToFirstEvent(params: z.input<typeof FirstEventParamsSchema>): Promise<number[]> {
    return (await this.child.call('timeToFirstEvent', params, FirstEventResultSchema)).samplesMs;
  }
}
