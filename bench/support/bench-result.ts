import type { BenchChild } from './bench-child.js';

/** A table of one benchmark, already formatted. */
export interface BenchTable {
  columns: string[];
  rows: string[][];
}

/** A target of the issue and how this run did against it (`met: null` when there is no target to meet). */
export interface BenchVerdict {
  target: string;
  measured: string;
  met: boolean | null;
}

/** What a benchmark reports: its tables, its verdicts against targets, and notes on method. */
export interface BenchResult {
  title: string;
  /** What is measured against what, in a sentence or two. */
  method: string;
  tables: BenchTable[];
  verdicts: BenchVerdict[];
  notes: string[];
}

/** What every benchmark gets: the helper processes and the size of the run. */
export interface BenchContext {
  /** A smoke run: smaller counts, one round. */
  quick: boolean;
  /** The fake model vendor process (`fake-model-process.ts`). */
  model: BenchChild;
  /** The fake ORS server process (`fake-ors-process.ts`). */
  ors: BenchChild;
  /** The load client process (`load-client-process.ts`). */
  load: BenchChild;
  /** Base URL of the fake model for the SDKs, e.g. `http://127.0.0.1:1234/v1`. */
  modelBaseUrl: string;
  /** Base URL of the fake ORS server. */
  orsUrl: string;
  /** Prints a progress line (to stderr, so the table on stdout stays clean). */
  progress(line: string): void;
}

/** `value` with `digits` decimals and thousands separators. */
export function formatNumber(value: number, digits = 0): string {
  if (!Number.isFinite(value)) return 'n/a';
  return value.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits });
}

/** A ratio as `0.93×`. */
export function formatRatio(value: number): string {
  return Number.isFinite(value) ? `${value.toFixed(2)}×` : 'n/a';
}

/** A fraction as `93.1 %`. */
export function formatPercent(value: number): string {
  return Number.isFinite(value) ? `${(value * 100).toFixed(1)} %` : 'n/a';
}
