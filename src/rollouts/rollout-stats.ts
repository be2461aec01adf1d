import type { PromptRendererWire } from '../protocol/conversation-schema.js';
import { canonicalJson } from './canonical-json.js';
import { rolloutKey } from './rollout-plan.js';
import type { TrajectoryRecord, TrajectoryStatus, TrajectoryStopReason } from './trajectory-schema.js';

/**
 * The statistics a rollout manifest reports, computed from compact per-record outcomes so a batch
 * of any size keeps only a few numbers per episode in memory.
 */

/** The reward at or above which an episode passes, for pass@k, unless a batch sets its own. */
export const DEFAULT_PASS_THRESHOLD = 1;

/** What the statistics need of one trajectory record. */
export interface RolloutOutcome {
  key: string;
  groupId: string;
  status: TrajectoryStatus;
  reward: number | null;
  stopReason: TrajectoryStopReason;
  inputTokens: number;
  outputTokens: number;
  totalTokens: number;
  totalMs: number;
  /** What rendered its token ids, when the provider says (`vllm`). */
  renderer?: PromptRendererWire;
}

/** The outcome of `record`. */
export function outcomeOf(record: TrajectoryRecord): RolloutOutcome {
  return {
    key: rolloutKey(record.group_id, record.sample_index),
    groupId: record.group_id,
    status: record.status,
    reward: record.reward,
    stopReason: record.stop_reason,
    inputTokens: record.metrics.input_tokens,
    outputTokens: record.metrics.output_tokens,
    totalTokens: record.metrics.total_tokens,
    totalMs: record.timing.total_ms,
    ...(record.renderer === undefined ? {} : { renderer: record.renderer }),
  };
}

/**
 * The unbiased pass@k estimate for one task (Chen et al., 2021): the chance that at least one of
 * `k` samples drawn without replacement from `n`, of which `c` passed, passes — `1 − C(n−c, k) / C(n, k)`,
 * computed as a product so it never overflows. Throws a `RangeError` unless `0 ≤ c ≤ n` and `1 ≤ k ≤ n`.
 */
export function passAtK(n: number, c: number, k: number): number {
  if (!(c >= 0 && c <= n && k >= 1 && k <= n))
    throw new RangeError(`pass@k needs 0 ≤ c ≤ n and 1 ≤ k ≤ n; got n=${n}, c=${c}, k=${k}.`);
  if (n - c < k) return 1;
  let allFail = 1;
  for (let i = n - c + 1; i <= n; i++) allFail *= 1 - k / i;
  return 1 - allFail;
}

/** The nearest-rank percentile `p` (0–100) of `values`; null for no values. */
export function percentile(values: readonly number[], p: number): number | null {
  if (values.length === 0) return null;
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.max(1, Math.ceil((p / 100) * sorted.length));
  return sorted[rank - 1]!;
}

/** What the manifest says about the records of a rollout file. */
export interface RolloutStats {
  episodes: number;
  completed: number;
  failed: number;
  /** Mean reward of completed episodes, an unscored one (null reward) counting as 0; null with none completed. */
  mean_reward: number | null;
  /** Completed episodes whose reward is not null. */
  scored: number;
  /** The reward at or above which an episode passes, for pass@k. */
  pass_threshold: number;
  /** pass@k for k = 1, 2, 4, … up to the most samples any task has, averaged over tasks with at least k completed samples. */
  pass_at_k: Record<string, number>;
  stop_reasons: Partial<Record<TrajectoryStopReason, number>>;
  tokens: { input: number; output: number; total: number };
  /** Wall time per episode, completed and failed alike. */
  episode_seconds: { p50: number | null; p95: number | null };
  /**
   * Each renderer (server model, template fingerprint, template kwargs, parsers) the records name, in
   * the order first seen, with the episodes it rendered: more than one means the ids of the file do
   * not all come from one tokenizer and template. Empty for providers that render nothing themselves;
   * absent from manifests written before it was.
   */
  renderers?: Array<PromptRendererWire & { episodes: number }>;
}

/** Statistics over `outcomes`; errors (failed episodes) count in totals but not in rewards or pass@k. */
export function summarizeOutcomes(outcomes: Iterable<RolloutOutcome>, passThreshold: number): RolloutStats {
  const stopReasons: Partial<Record<TrajectoryStopReason, number>> = {};
  const tokens = { input: 0, output: 0, total: 0 };
  const durations: number[] = [];
  const groups = new Map<string, { n: number; c: number }>();
  const renderers = new Map<string, PromptRendererWire & { episodes: number }>();
  let episodes = 0;
  let completed = 0;
  let scored = 0;
  let rewardSum = 0;
  for (const outcome of outcomes) {
    episodes++;
    stopReasons[outcome.stopReason] = (stopReasons[outcome.stopReason] ?? 0) + 1;
    tokens.input += outcome.inputTokens;
    tokens.output += outcome.outputTokens;
    tokens.total += outcome.totalTokens;
    durations.push(outcome.totalMs / 1000);
    if (outcome.renderer !== undefined) {
      const key = canonicalJson(outcome.renderer);
      const seen = renderers.get(key);
      if (seen) seen.episodes++;
      else renderers.set(key, { ...outcome.renderer, episodes: 1 });
    }
    if (outcome.status !== 'completed') continue;
    completed++;
    if (outcome.reward !== null) scored++;
    rewardSum += outcome.reward ?? 0;
    const group = groups.get(outcome.groupId) ?? { n: 0, c: 0 };
    group.n++;
    if ((outcome.reward ?? 0) >= passThreshold) group.c++;
    groups.set(outcome.groupId, group);
  }
  return {
    episodes,
    completed,
    failed: episodes - completed,
    mean_reward: completed === 0 ? null : rewardSum / completed,
    scored,
    pass_threshold: passThreshold,
    pass_at_k: passAtKTable([...groups.values()]),
    stop_reasons: stopReasons,
    tokens,
    episode_seconds: { p50: percentile(durations, 50), p95: percentile(durations, 95) },
    renderers: [...renderers.values()],
  };
}

function passAtKTable(groups: ReadonlyArray<{ n: number; c: number }>): Record<string, number> {
  const most = Math.max(0, ...groups.map((group) => group.n));
  const ks = new Set<number>();
  for (let k = 1; k <= most; k *= 2) ks.add(k);
  if (most > 0) ks.add(most);
  const table: Record<string, number> = {};
  for (const k of [...ks].sort((a, b) => a - b)) {
    const eligible = groups.filter((group) => group.n >= k);
    table[String(k)] = eligible.reduce((sum, group) => sum + passAtK(group.n, group.c, k), 0) / eligible.length;
  }
  return table;
}
