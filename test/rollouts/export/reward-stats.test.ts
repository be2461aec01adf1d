import { describe, expect, it } from 'vitest';
import { advantageOf, rewardStats } from '../../../src/rollouts/export/reward-stats.js';

describe('rewardStats', () => {
  it('gives the mean and the population standard deviation', () => {
    const stats = rewardStats([1, 0, 1, 0]);
    expect(stats).toEqual({ mean: 0.5, variance: 0.25, std: 0.5 });
    expect(advantageOf(1, stats)).toBe(1);
    expect(advantageOf(0, stats)).toBe(-1);
  });

  it('gives exactly 0 variance for equal rewards, where the naive formula leaves rounding noise', () => {
    const naiveMean = (0.1 + 0.1 + 0.1) / 3;
    expect(3 * (0.1 - naiveMean) ** 2).toBeGreaterThan(0);
    const stats = rewardStats([0.1, 0.1, 0.1]);
    expect(stats).toEqual({ mean: 0.1, variance: 0, std: 0 });
    expect(advantageOf(0.1, stats)).toBe(0);
  });

  it('gives a group of one a variance of 0', () => {
    expect(rewardStats([0.7])).toEqual({ mean: 0.7, variance: 0, std: 0 });
  });

  it('refuses no rewards', () => {
    expect(() => rewardStats([])).toThrow(RangeError);
  });
});
