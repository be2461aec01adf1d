import type { RolloutWorkers } from './rollout-worker-setup.js';

/**
 * Pending episodes that make a thread worth starting, when a batch starts its threads as needed: a thread
 * takes a few hundred milliseconds of a core to load and set itself up, and V8 optimises the bridge's
 * code in it over its first thousand or so episodes. Benchmark 13 measured a second thread at 512 a
 * thread: 0.82× one thread on a batch of 1,280 fast episodes, 1.15× on 4,096.
 */
export const EPISODES_PER_THREAD = 2048;

/** The threads a batch plays its episodes in. */
export interface RolloutThreads {
  /** Worker threads to start. */
  workers: number;
  /** Whether the calling thread plays episodes too. */
  here: boolean;
}

/**
 * Where a batch of `pending` episodes, `concurrency` at once, plays them. Without `workers`, or with
 * one thread, in the calling thread. With `count` threads, in that many worker threads, started before
 * the batch plays; the calling thread only writes. As needed (`asNeeded`), the calling thread plays from
 * the start and a worker thread is added beside it for each further `episodesPerThread` pending episodes
 * (default {@link EPISODES_PER_THREAD}) and each whole core no other process keeps busy (`idleCores`),
 * `count` threads in all at most, this one among them.
 */
export function rolloutThreads(
  workers: Pick<RolloutWorkers, 'count' | 'asNeeded' | 'episodesPerThread' | 'idleCores'> | undefined,
  concurrency: number,
  pending: number,
): RolloutThreads {
  if (workers === undefined) return { workers: 0, here: true };
  if (workers.asNeeded) {
    // A thread without a core of its own only slows the others: one more only for each whole idle core.
    const cores = workers.idleCores === undefined ? Number.POSITIVE_INFINITY : 1 + Math.floor(workers.idleCores);
    const wanted = Math.min(Math.floor(pending / (workers.episodesPerThread ?? EPISODES_PER_THREAD)), cores);
    return { workers: Math.max(0, Math.min(workers.count, concurrency, wanted) - 1), here: true };
  }
  const threads = Math.min(workers.count, concurrency, pending);
  return threads > 1 ? { workers: threads, here: false } : { workers: 0, here: true };
}
