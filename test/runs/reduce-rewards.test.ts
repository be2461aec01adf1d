import { describe, expect, it } from 'vitest';
import { reduceRewards } from '../../src/runs/reduce-rewards.js';

describe('reward reduction', () => {
  const rewards = [null, 0.5, null, 1, 0];

  it('takes the last non-null reward by default', () => {
    expect(reduceRewards(rewards)).toBe(0);
    expect(reduceRewards([1, null])).toBe(1);
  });

  it('sums, averages or maximises the non-null rewards on request', () => {
    expect(reduceRewards(rewards, 'sum')).toBe(1.5);
    expect(reduceRewards(rewards, 'mean')).toBe(0.5);
    expect(reduceRewards(rewards, 'max')).toBe(1);
  });

  it('is null when no tool call was scored', () => {
    expect(reduceRewards([null, null], 'sum')).toBeNull();
    expect(reduceRewards([])).toBeNull();
  });
});
