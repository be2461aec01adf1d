import { describe, expect, it } from 'vitest';
import { reduceRewards } from '../../src/protocol/reduce-rewards.js';
import { RUN_REQUEST_DEFAULTS } from '../../src/protocol/run-request.js';

describe('reward reduction', () => {
  const rewards = [null, 0.5, null, 1, 0];

  it('takes the last non-null reward with `last`, the default of a run request', () => {
    expect(reduceRewards(rewards, RUN_REQUEST_DEFAULTS.reward_reduction)).toBe(0);
    expect(reduceRewards([1, null], 'last')).toBe(1);
  });

  it('sums, averages or maximises the non-null rewards on request', () => {
    expect(reduceRewards(rewards, 'sum')).toBe(1.5);
    expect(reduceRewards(rewards, 'mean')).toBe(0.5);
    expect(reduceRewards(rewards, 'max')).toBe(1);
  });

  it('is null when no tool call was scored', () => {
    expect(reduceRewards([null, null], 'sum')).toBeNull();
    expect(reduceRewards([], 'last')).toBeNull();
  });
});
