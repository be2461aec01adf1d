/**
 * A small seeded pseudo-random source for generating tasks and workspaces. Built-in environments must
 * give the same task for the same (split, index) on every machine and Node version, so nothing here
 * touches `Math.random`: a string seed is hashed with 32-bit FNV-1a and drives mulberry32.
 */

/** Deterministic draws from one seed; every method advances the same sequence. */
export interface SeededRandom {
  /** A float in [0, 1). */
  next(): number;
  /** An integer in [min, max], both ends included; `min > max` throws a RangeError. */
  int(min: number, max: number): number;
  /** One element of a non-empty list; an empty list throws a RangeError. */
  pick<T>(items: readonly T[]): T;
  /** True with probability `p` (clamped to [0, 1]). */
  chance(p: number): boolean;
  /** A shuffled copy of `items` (Fisher–Yates); the input is left untouched. */
  shuffle<T>(items: readonly T[]): T[];
}

/** The 32-bit FNV-1a hash of `text`'s UTF-16 code units, as an unsigned integer. */
export function hashString(text: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193);
  }
  return hash >>> 0;
}

/** A {@link SeededRandom} whose sequence depends only on `seed` (numbers and strings both accepted). */
export function seededRandom(seed: string | number): SeededRandom {
  let state = typeof seed === 'number' ? seed >>> 0 : hashString(seed);
  const next = (): number => {
    // mulberry32: tiny, fast, and good enough for generating word problems and file trees.
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const int = (min: number, max: number): number => {
    if (min > max) throw new RangeError(`int(${min}, ${max}): min must not exceed max`);
    return min + Math.floor(next() * (max - min + 1));
  };
  return {
    next,
    int,
    pick: <T>(items: readonly T[]): T => {
      if (items.length === 0) throw new RangeError('pick() needs at least one item');
      return items[int(0, items.length - 1)] as T;
    },
    chance: (p) => next() < Math.min(1, Math.max(0, p)),
    shuffle: <T>(items: readonly T[]): T[] => {
      const copy = [...items];
      for (let i = copy.length - 1; i > 0; i--) {
        const j = int(0, i);
        [copy[i], copy[j]] = [copy[j] as T, copy[i] as T];
      }
      return copy;
    },
  };
}
