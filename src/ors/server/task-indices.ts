/**
 * Task addressing with Python's list semantics, because the reference server is Python and its
 * clients rely on them: an index may count from the end (`-1` is the last task), and a range is a
 * slice that clamps to the list instead of failing.
 */

/** The index `index` denotes in a list of `count` tasks (`-1` → `count - 1`), or undefined when out of range. */
export function resolveTaskIndex(index: number, count: number): number | undefined {
  const resolved = index < 0 ? count + index : index;
  return resolved >= 0 && resolved < count ? resolved : undefined;
}

/**
 * The indices of `tasks[start:stop]` in a list of `count` tasks: both default to the whole list,
 * negative values count from the end, everything clamps to `0…count`, and `start >= stop` is empty.
 */
export function sliceTaskIndices(count: number, start: number | undefined, stop: number | undefined): number[] {
  const clamp = (value: number) => Math.min(Math.max(value < 0 ? count + value : value, 0), count);
  const from = clamp(start ?? 0);
  const to = clamp(stop ?? count);
  const indices: number[] = [];
  for (let index = from; index < to; index += 1) indices.push(index);
  return indices;
}
