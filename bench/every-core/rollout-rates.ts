import { z } from 'zod';
import { type BenchChild, startBenchChild } from '../support/bench-child.js';

export const RolloutRatesParamsSchema = z.object({
  /** Worker threads of the batch; 1 plays it in the process's own thread, as `--workers 1` does. */
  workers: z.number().int().positive(),
  episodes: z.number().int().positive(),
  /**
   * As `runbridge rollout` without `--workers` does on an idle machine: `workers` threads at most, each
   * started only as the batch can use it (`rolloutThreads`).
   */
  asNeeded: z.boolean().default(false),
});

export const RolloutRatesSchema = z.object({
  /** Episodes per second over the second half of the batch's records. */
  steady: z.number(),
  /** Episodes per second from the first record to the last. */
  whole: z.number(),
  /** From the batch's start to its first record, ms (the worker threads' start, with `workers` above 1). */
  toFirstMs: z.number(),
  /** Episodes per second from the batch's start to its last record: what a user waits, threads' start included. */
  batch: z.number(),
  /** CPU µs per episode of the process, every thread, over the same second half. */
  cpuUs: z.number(),
  /** The threads that played episodes, the process's own among them when it played (`rolloutThreads`). */
  threads: z.number(),
});
export type RolloutRates = z.infer<typeof RolloutRatesSchema>;

export const RawRateParamsSchema = z.object({ episodes: z.number().int().positive() });

export const RawRateSchema = z.object({
  /** Finished episodes per second over the loop's wall time. */
  rate: z.number(),
  /** CPU µs per episode of the process over it. */
  cpuUs: z.number(),
});
export type RawRate = z.infer<typeof RawRateSchema>;

/**
 * Benchmark 13's rollouts in a process of their own: `--workers 1` plays in that process's thread, so
 * it must not carry the heap the benchmark process built in the benchmarks before it, which the new
 * worker threads of `--workers 2` never see. The raw loop plays in the same process, in one thread.
 */
export class RolloutRatesProcess {
  private constructor(private readonly child: BenchChild) {}

  /** Starts the process, its rollouts and loop pointed at the fake model and the fake ORS server. */
  static async start({ modelBaseUrl, orsUrl }: { modelBaseUrl: string; orsUrl: string }): Promise<RolloutRatesProcess> {
    const entry = new URL('./rollout-rates-process.ts', import.meta.url);
    return new RolloutRatesProcess(await startBenchChild('rollout rates', entry, [modelBaseUrl, orsUrl]));
  }

  /** One batch of `episodes` one-turn episodes through `generateRollouts`, 256 in flight. */
  rollouts(params: z.input<typeof RolloutRatesParamsSchema>): Promise<RolloutRates> {
    return this.child.call('rollouts', params, RolloutRatesSchema);
  }

  /** The same episodes through the hand-written loop on `node:http`, in one thread. */
  raw(params: z.input<typeof RawRateParamsSchema>): Promise<RawRate> {
    return this.child.call('raw', params, RawRateSchema);
  }

  stop(): Promise<void> {
    return this.child.stop();
  }
}
