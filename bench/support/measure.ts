import { performance } from 'node:perf_hooks';
import type { CpuUsage } from './bench-child.js';

/** What one measured piece of work cost the process measured. */
export interface Measured<T> {
  value: T;
  /** Wall-clock milliseconds. */
  wallMs: number;
  /** CPU milliseconds (user + system) of the process measured, all threads. */
  cpuMs: number;
}

/** A process whose CPU time can be read: this one, or a helper over its IPC channel. */
export interface CpuReadable {
  cpuUsage(): Promise<CpuUsage>;
}

const THIS_PROCESS: CpuReadable = { cpuUsage: async () => process.cpuUsage() };

/** Runs `work` and reports its wall time and the CPU time `of` — this process unless given — spent over it. */
export async function measure<T>(work: () => Promise<T>, of: CpuReadable = THIS_PROCESS): Promise<Measured<T>> {
  const cpu0 = await of.cpuUsage();
  const t0 = performance.now();
  const value = await work();
  const wallMs = performance.now() - t0;
  const cpu1 = await of.cpuUsage();
  return { value, wallMs, cpuMs: (cpu1.user + cpu1.system - cpu0.user - cpu0.system) / 1000 };
}

/** The median of `values` (the mean of the middle two for an even count); NaN for none. */
export function median(values: readonly number[]): number {
  return percentile(values, 50);
}

/** The `p`-th percentile of `values` by linear interpolation between ranks; NaN for none. */
export function percentile(values: readonly number[], p: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const rank = (p / 100) * (sorted.length - 1);
  const low = Math.floor(rank);
  const high = Math.ceil(rank);
  return sorted[low]! + (sorted[high]! - sorted[low]!) * (rank - low);
}

/**
 * Warm-up rounds before a benchmark measures the bridge's CPU per turn against a baseline: five (one
 * for `--quick`). The bridge, with far more code than a loop, keeps getting cheaper for its first
 * 2,000 turns or so — 200 runs through its API — while V8 optimises it; the loops and SDKs level off
 * within a round (`bench/profiling-log.md`). A serving bridge runs warm, so that is what is measured.
 */
export function warmUpRounds(quick: boolean): number {
  return quick ? 1 : 5;
}

/**
 * Runs `rounds` rounds of every variant, each round back to back, so slow drift of a noisy machine
 * falls on all variants alike; the order turns round every other round (A B, B A, A B …), so what a
 * variant leaves for the next (garbage to collect, a cold cache) does too — with a fixed order,
 * benchmark 6's ratio moved by 0.05–0.08 when the two variants swapped places. Answers each variant's
 * samples in round order.
 */
export async function alternate<K extends string, T>(
  rounds: number,
  variants: Record<K, () => Promise<T>>,
): Promise<Record<K, T[]>> {
  const keys = Object.keys(variants) as K[];
  const samples = Object.fromEntries(keys.map((key) => [key, [] as T[]])) as Record<K, T[]>;
  for (let round = 0; round < rounds; round++) {
    for (const key of round % 2 === 0 ? keys : [...keys].reverse()) samples[key].push(await variants[key]());
  }
  return samples;
}

/**
 * The median over rounds of `ours[i] / theirs[i]`: each round's pair ran back to back, so a ratio of
 * pairs cancels most of what a shared, noisy machine does to both; NaN when there is no pair.
 */
export function pairedRatio(ours: readonly number[], theirs: readonly number[]): number {
  const ratios = ours.flatMap((value, i) => (theirs[i] === undefined ? [] : [value / theirs[i]!]));
  return median(ratios);
}
