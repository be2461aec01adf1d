import { describe, expect, it } from 'vitest';
import { resolveTaskIndex, sliceTaskIndices } from '../../../src/ors/server/task-indices.js';

describe('resolveTaskIndex', () => {
  it('accepts 0…count-1 and counts negative indices from the end, like a Python list', () => {
    expect(resolveTaskIndex(0, 3)).toBe(0);
    expect(resolveTaskIndex(2, 3)).toBe(2);
    expect(resolveTaskIndex(-1, 3)).toBe(2);
    expect(resolveTaskIndex(-3, 3)).toBe(0);
  });

  it('is undefined outside the list', () => {
    expect(resolveTaskIndex(3, 3)).toBeUndefined();
    expect(resolveTaskIndex(-4, 3)).toBeUndefined();
    expect(resolveTaskIndex(0, 0)).toBeUndefined();
  });
});

describe('sliceTaskIndices', () => {
  it('follows Python slice semantics: defaults, negatives, clamping, empty when start >= stop', () => {
    expect(sliceTaskIndices(5, undefined, undefined)).toEqual([0, 1, 2, 3, 4]);
    expect(sliceTaskIndices(5, 1, 3)).toEqual([1, 2]);
    expect(sliceTaskIndices(5, -2, undefined)).toEqual([3, 4]);
    expect(sliceTaskIndices(5, undefined, -1)).toEqual([0, 1, 2, 3]);
    expect(sliceTaskIndices(5, -100, 100)).toEqual([0, 1, 2, 3, 4]);
    expect(sliceTaskIndices(5, 3, 1)).toEqual([]);
    expect(sliceTaskIndices(5, 7, 9)).toEqual([]);
    expect(sliceTaskIndices(0, undefined, undefined)).toEqual([]);
  });
});
