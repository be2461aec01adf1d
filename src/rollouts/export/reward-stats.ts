/**
 * The group statistics of a GRPO-style export (`docs/trajectory.md`, "grpo"): mean, population
 * standard deviation and each sample's advantage.
 */

/** Mean, variance and standard deviation of one group's rewards. */
export interface RewardStats {
  mean: number;
  /** Population variance (divided by n, not n − 1), so a group of one has 0. */
  variance: number;
  std: number;
}

/**
 * The statistics of `rewards` (at least one). Computed around the first reward, so a group whose
 * rewards are all equal has a variance of exactly 0 — `--min-group-variance 0` relies on that —
 * where the naive formula can leave rounding noise (three rewards of 0.1 would give about 1e-34).
 */
export function rewardStats(rewards: readonly number[]): RewardStats {
  if (rewards.length === 0) throw new RangeError('rewardStats needs at least one reward.');
  const shift = rewards[0]!;
  const deltas = rewards.map((reward) => reward - shift);
  const meanDelta = deltas.reduce((sum, delta) => sum + delta, 0) / deltas.length;
  const variance = deltas.reduce((sum, delta) => sum + (delta - meanDelta) ** 2, 0) / deltas.length;
  return { mean: shift + meanDelta, variance, std: Math.sqrt(variance) };
}

/** `(reward − mean) / std`, or 0 when the group's rewards are all equal (std 0): nothing to prefer. */
export function advantageOf(reward: number, stats: RewardStats): number {
  return stats.std === 0 ? 0 : (reward - stats.mean) / stats.std;
}
