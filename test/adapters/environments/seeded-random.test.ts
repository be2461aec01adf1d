import { describe, expect, it } from 'vitest';
import { hashString, seededRandom } from '../../../adapters/environments/seeded-random.js';

describe('seededRandom', () => {
  it('repeats the same sequence for the same seed and differs for another', () => {
    const draw = (seed: string) => {
      const random = seededRandom(seed);
      return Array.from({ length: 20 }, () => random.next());
    };
    expect(draw('arith:train:1')).toEqual(draw('arith:train:1'));
    expect(draw('arith:train:1')).not.toEqual(draw('arith:train:2'));
  });

  it('keeps int() within its bounds, both ends reachable', () => {
    const random = seededRandom(7);
    const seen = new Set<number>();
    for (let i = 0; i < 2000; i++) seen.add(random.int(3, 6));
    expect([...seen].sort()).toEqual([3, 4, 5, 6]);
    expect(() => random.int(2, 1)).toThrow(RangeError);
  });

  it('shuffles into a permutation without touching the input', () => {
    const input = [1, 2, 3, 4, 5, 6];
    const shuffled = seededRandom('x').shuffle(input);
    expect([...shuffled].sort()).toEqual(input);
    expect(input).toEqual([1, 2, 3, 4, 5, 6]);
    expect(() => seededRandom('x').pick([])).toThrow(RangeError);
  });

  it('hashes strings with FNV-1a', () => {
    expect(hashString('')).toBe(0x811c9dc5);
    expect(hashString('a')).toBe(0xe40c292c);
  });
});
