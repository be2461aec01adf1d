import { cpus, totalmem, type } from 'node:os';

/** The machine a benchmark run happened on; every figure is only comparable to others from the same. */
export interface MachineInfo {
  cpuModel: string;
  cores: number;
  memoryGiB: number;
  os: string;
  node: string;
  /** ISO date and time the run started. */
  date: string;
}

/** Describes this machine and process. */
export function machineInfo(now: Date = new Date()): MachineInfo {
  const cores = cpus();
  return {
    cpuModel: cores[0]?.model.trim() ?? 'unknown',
    cores: cores.length,
    memoryGiB: totalmem() / 1024 ** 3,
    os: type(),
    node: process.version,
    date: now.toISOString(),
  };
}
