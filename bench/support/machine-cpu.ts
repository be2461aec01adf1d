import { readFileSync } from 'node:fs';
import { cpus } from 'node:os';
import type { BenchChild } from './bench-child.js';

/** The machine's CPU time since boot, from the first line of `/proc/stat`, in clock ticks. */
interface CpuTicks {
  busy: number;
  total: number;
}

function readTicks(): CpuTicks | undefined {
  try {
    const fields = readFileSync('/proc/stat', 'utf8').split('\n', 1)[0]!.trim().split(/\s+/).slice(1).map(Number);
    // user nice system idle iowait irq softirq steal …: idle and iowait are the time no process ran.
    const total = fields.slice(0, 8).reduce((sum, ticks) => sum + ticks, 0);
    return { busy: total - fields[3]! - fields[4]!, total };
  } catch {
    return undefined;
  }
}

/** Cores of this machine, as {@link CoresUsed.machine} counts them. */
export const MACHINE_CORES = cpus().length;

/** Cores' worth of CPU: how busy the whole machine was, and how much of it the benchmark's helpers took. */
export interface CoresUsed {
  /** Every process on the machine, in cores (2.0 = both cores of a 2-core machine all the time); NaN off Linux. */
  machine: number;
  /** The helper processes given (fake servers, load client), in cores. */
  helpers: number;
  /** The helpers' CPU over it, ms. */
  helpersMs: number;
}

/**
 * Runs `work` and answers how many cores' worth of CPU the machine as a whole and `helpers` spent over
 * it: where the processes measured share a machine with the fakes, the load client and Redis, this shows
 * whether the machine, not the code measured, set the pace.
 */
export async function measureCoresUsed<T>(
  helpers: readonly BenchChild[],
  work: () => Promise<T>,
): Promise<{ value: T; cores: CoresUsed }> {
  const helperCpuMs = async () =>
    (await Promise.all(helpers.map((helper) => helper.cpuUsage()))).reduce(
      (sum, usage) => sum + (usage.user + usage.system) / 1000,
      0,
    );
  const ticks0 = readTicks();
  const helpers0 = await helperCpuMs();
  const t0 = performance.now();
  const value = await work();
  const wallMs = performance.now() - t0;
  const helpersMs = (await helperCpuMs()) - helpers0;
  const ticks1 = readTicks();
  // `/proc/stat`'s first line sums every core, so its busy share times the cores is cores' worth.
  const machine =
    ticks0 && ticks1 ? ((ticks1.busy - ticks0.busy) / (ticks1.total - ticks0.total)) * MACHINE_CORES : Number.NaN;
  return { value, cores: { machine, helpers: helpersMs / wallMs, helpersMs } };
}

/**
 * The most `rate` could become on this machine if more workers kept every core busy while the work
 * cost the machine what it did when `rate` was measured with `cores` busy: `rate` × cores ÷ busy. Only
 * the whole machine's CPU per unit of work counts — the fakes' and the load client's share too — so a
 * second worker cannot pass it unless it makes each unit cheaper.
 */
export function machineCeiling(rate: number, cores: CoresUsed): number {
  return (rate * MACHINE_CORES) / cores.machine;
}
