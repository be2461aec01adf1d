import { Session } from 'node:inspector/promises';

/** Bytes V8 samples one allocation per, on average: small enough for a steady sum over one wave of episodes. */
const SAMPLING_INTERVAL = 512;

/** What one measured piece of work allocated. */
export interface Allocated<T> {
  value: T;
  /** Bytes allocated on the JavaScript heap while it ran, objects already collected included. */
  bytes: number;
}

/**
 * Runs `work` under V8's sampling heap profiler, keeping the samples of objects the garbage collector
 * has already freed, and answers what it allocated on this process's heap: every object the work made,
 * however short-lived, which is what the collector pays for. A sample stands for `SAMPLING_INTERVAL`
 * bytes on average, so the sum is an estimate whose spread falls with the amount measured.
 * `process.memoryUsage()` cannot tell this: it sees only what is alive when it is read.
 */
export async function measureAllocation<T>(work: () => Promise<T>): Promise<Allocated<T>> {
  const session = new Session();
  session.connect();
  try {
    await session.post('HeapProfiler.startSampling', {
      samplingInterval: SAMPLING_INTERVAL,
      includeObjectsCollectedByMajorGC: true,
      includeObjectsCollectedByMinorGC: true,
    });
    const value = await work();
    const { profile } = await session.post('HeapProfiler.stopSampling');
    return { value, bytes: sampledBytes(profile.head) };
  } finally {
    session.disconnect();
  }
}

function sampledBytes(node: { selfSize: number; children: ReadonlyArray<typeof node> }): number {
  let bytes = node.selfSize;
  for (const child of node.children) bytes += sampledBytes(child);
  return bytes;
}
