import { describe, expect, it } from 'vitest';
import { BadRequestError } from '../../src/errors.js';
import {
  deriveSeed,
  formatTaskIndices,
  parseTaskSelection,
  planRollouts,
  resolveTaskIndices,
} from '../../src/rollouts/rollout-plan.js';

describe('task selections', () => {
  it('reads ranges with an exclusive stop, single indices, open ends and comma-joined pieces', () => {
    expect(resolveTaskIndices(parseTaskSelection('0:5'), 100)).toEqual([0, 1, 2, 3, 4]);
    expect(resolveTaskIndices(parseTaskSelection('7'), 100)).toEqual([7]);
    expect(resolveTaskIndices(parseTaskSelection(':3'), 100)).toEqual([0, 1, 2]);
    expect(resolveTaskIndices(parseTaskSelection('97:'), 100)).toEqual([97, 98, 99]);
    expect(resolveTaskIndices(parseTaskSelection('8:10, 2 ,0:3'), 100)).toEqual([0, 1, 2, 8, 9]);
  });

  it('refuses malformed pieces, empty ranges, negative numbers and ranges past the split, saying which', () => {
    for (const text of ['a:b', '1:2:3', '-1', '5:5', '6:2', '', '1,,2']) {
      expect(() => resolveTaskIndices(parseTaskSelection(text), 100), text).toThrow(BadRequestError);
    }
    expect(() => resolveTaskIndices(parseTaskSelection('90:101'), 100)).toThrow(
      /range 90:101 is out of range: the split has 100 tasks/,
    );
    expect(() => resolveTaskIndices(parseTaskSelection('100:'), 100)).toThrow(/out of range/);
    expect(() => resolveTaskIndices([3, 100], 100)).toThrow(/index 100 is out of range/);
    expect(() => resolveTaskIndices([], 100)).toThrow(/picks no task/);
  });

  it('writes indices back compactly in a form that parses to the same list', () => {
    const indices = [0, 1, 2, 5, 7, 8, 20];
    expect(formatTaskIndices(indices)).toBe('0:3,5,7:9,20');
    expect(resolveTaskIndices(parseTaskSelection(formatTaskIndices(indices)), 100)).toEqual(indices);
    expect(formatTaskIndices([4])).toBe('4');
  });
});

describe('rollout seeds', () => {
  it('derive the same value on every machine and version from the master seed, task and sample', () => {
    // Pinned: a change here silently changes every seeded rollout ever planned.
    expect(deriveSeed(0, 'arith', 'train', 0, 0)).toBe(1187452507);
    expect(deriveSeed(0, 'arith', 'train', 0, 1)).toBe(622091686);
  });

  it('differ between samples, tasks, splits, environments and master seeds, and fit a 31-bit integer', () => {
    const seeds = [
      deriveSeed(0, 'arith', 'train', 0, 0),
      deriveSeed(0, 'arith', 'train', 0, 1),
      deriveSeed(0, 'arith', 'train', 1, 0),
      deriveSeed(0, 'arith', 'test', 0, 0),
      deriveSeed(0, 'workspace', 'train', 0, 0),
      deriveSeed(1, 'arith', 'train', 0, 0),
    ];
    expect(new Set(seeds).size).toBe(seeds.length);
    for (const seed of seeds) expect(Number.isInteger(seed) && seed >= 0 && seed < 2 ** 31).toBe(true);
  });
});

describe('planRollouts', () => {
  it('lists every (task, sample) pair task by task, with group ids, keys and derived seeds', () => {
    const plan = planRollouts({ env: 'arith', split: 'train', indices: [3, 4], samples: 2, masterSeed: 9 });
    expect(plan.map((rollout) => rollout.key)).toEqual([
      'arith/train/3#0',
      'arith/train/3#1',
      'arith/train/4#0',
      'arith/train/4#1',
    ]);
    expect(plan[2]).toEqual({
      key: 'arith/train/4#0',
      groupId: 'arith/train/4',
      index: 4,
      sample: 0,
      seed: deriveSeed(9, 'arith', 'train', 4, 0),
    });
  });
});
