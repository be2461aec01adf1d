import { z } from 'zod';
import { type CpuUsage, startBenchChild } from './bench-child.js';

/** A bench bridge serving from a process of its own. */
export interface BridgeProcess {
  url: string;
  /** The process's CPU time so far, every thread. */
  cpuUsage(): Promise<CpuUsage>;
  /** Shuts the bridge down and waits for the process to exit. */
  stop(): Promise<void>;
}

/**
 * Starts the bridge of `startBenchBridge` in a new process, as each peer of benchmark 14 plays in one:
 * the benchmark process has run every benchmark before by then, and what they left in its heap slows
 * whatever runs in its thread (`bench/profiling-log.md`, benchmark 13). Its modules come from dist/, as
 * every helper's do.
 */
export async function startBridgeProcess({
  orsUrl,
  modelBaseUrl,
}: {
  orsUrl: string;
  modelBaseUrl: string;
}): Promise<BridgeProcess> {
  const child = await startBenchChild('bridge', new URL('./bench-bridge-process.ts', import.meta.url), [
    orsUrl,
    modelBaseUrl,
  ]);
  return { url: await child.call('url', null, z.string()), cpuUsage: () => child.cpuUsage(), stop: () => child.stop() };
}
