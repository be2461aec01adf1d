/** Episodes in flight in benchmark 13's rollouts and runs at once in its serve rows. */
export const EVERY_CORE_CONCURRENCY = 256;
/** The fake model's latency per call in benchmark 13, ms. */
export const EVERY_CORE_LATENCY_MS = 50;
/** Benchmark 13's rollout episodes: one model call answered after the latency, one tool call. */
export const EVERY_CORE_ROLLOUT_MODEL = `solve-in-1-after-${EVERY_CORE_LATENCY_MS}ms`;
