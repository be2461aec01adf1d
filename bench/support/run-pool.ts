/**
 * Calls `work(0)` … `work(count - 1)` with at most `concurrency` in flight, and answers their
 * results in index order. The first rejection rejects the pool (work already started still runs).
 */
export async function runPool<T>(
  count: number,
  concurrency: number,
  work: (index: number) => Promise<T>,
): Promise<T[]> {
  const results: T[] = new Array<T>(count);
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < count) {
      const index = next++;
      results[index] = await work(index);
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, count) }, worker));
  return results;
}
