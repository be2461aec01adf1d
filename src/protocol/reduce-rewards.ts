import type { RewardReduction } from './run-request.js';

/**
 * Reduces the rewards of a run's tool calls to the run's reward. Null rewards (tools that do not
 * score) are skipped; with no reward at all the result is null. `last` (the default) takes the last
 * non-null reward, which suits environments that score once at `submit`.
 */
export function reduceRewards(rewards: ReadonlyArray<number | null>, reduction: RewardReduction): number | null {
  const scored = rewards.filter((reward): reward is number => reward !== null);
  if (scored.length === 0) return null;
  switch (reduction) {
    case 'last':
      return scored[scored.length - 1]!;
    case 'sum':
      return scored.reduce((total, reward) => total + reward, 0);
    case 'mean':
      return scored.reduce((total, reward) => total + reward, 0) / scored.length;
    case 'max':
      return Math.max(...scored);
  }
}
