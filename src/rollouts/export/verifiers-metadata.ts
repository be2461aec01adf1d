import type { Sampling } from '../../protocol/run-request.js';
import { DEFAULT_PASS_THRESHOLD, passAtK } from '../rollout-stats.js';
import type { TokenCheck } from './episode-tokens.js';
import { type ExportFilters, type RecordGroup, rewardOf } from './group-records.js';
import type { VerifiersRow } from './verifiers-rows.js';

/**
 * The `metadata.json` of a `verifiers` export: the fields of verifiers' `GenerateMetadata` as its
 * `metadata.json` holds them, computed from the exported rows alone so the same input always gives the
 * same file, plus a `runbridge` object saying what was exported (`docs/trajectory.md`, "verifiers").
 */
export interface VerifiersMetadata {
  /** The environments, sorted and joined by commas. */
  env_id: string;
  env_args: Record<string, never>;
  model: string;
  base_url: string;
  /** Groups (tasks) in the export. */
  num_examples: number;
  /** The largest group's size. */
  rollouts_per_example: number;
  /** The sampling settings every rollout was sent, without its per-rollout seed. */
  sampling_args: Omit<Sampling, 'seed'>;
  /** Seconds from the first episode's start to the last one's end. */
  time: number;
  avg_reward: number;
  avg_metrics: Record<string, number>;
  avg_error: number;
  /** Over the groups of `rollouts_per_example` samples, for k = 1, 2, 4, … up to it (verifiers' estimators). */
  pass_at_k: Record<string, number>;
  pass_all_k: Record<string, number>;
  pass_threshold: number;
  /** Mean tokens per rollout; null with no rows. */
  usage: { input_tokens: number; output_tokens: number } | null;
  version_info: { vf_version: null; vf_commit: null; env_version: null; env_commit: null };
  state_columns: string[];
  /** The tools, when every row offered the same ones (by name, as verifiers compares them); null otherwise. */
  tools: VerifiersRow['tool_defs'] | null;
  runbridge: {
    inputs: string[];
    filters: { status: string | null; min_group_variance: number | null };
    rows: number;
    token_checks: Record<TokenCheck, number>;
  };
}

/** What {@link verifiersMetadata} needs besides the rows. */
export interface VerifiersMetadataInput {
  rows: readonly VerifiersRow[];
  groups: readonly RecordGroup[];
  inputs: readonly string[];
  filters: ExportFilters;
}

/** The metadata of an export of `rows`, which came from `groups` (in the same order). */
export function verifiersMetadata({ rows, groups, inputs, filters }: VerifiersMetadataInput): VerifiersMetadata {
  const records = groups.flatMap((group) => group.records);
  const first = records[0];
  const { seed: _seed, ...sampling } = first?.sampling ?? { seed: 0 };
  const n = Math.max(0, ...groups.map((group) => group.records.length));
  const toolKeys = new Set(rows.map((row) => JSON.stringify(row.tool_defs.map((tool) => tool.name).sort())));
  const tokenChecks: Record<TokenCheck, number> = { ok: 0, mismatch: 0, incomplete: 0, none: 0 };
  for (const row of rows) tokenChecks[row.token_check]++;
  return {
    env_id: [...new Set(records.map((record) => record.task.env))].sort().join(','),
    env_args: {},
    model: first?.model ?? '',
    base_url: '',
    num_examples: groups.length,
    rollouts_per_example: n,
    sampling_args: sampling,
    time:
      records.length === 0
        ? 0
        : Math.max(...records.map((record) => record.timing.ended_at)) -
          Math.min(...records.map((record) => record.timing.started_at)),
    avg_reward: mean(rows.map((row) => row.reward)),
    avg_metrics: {
      turns: mean(rows.map((row) => row.metrics.turns)),
      tool_calls: mean(rows.map((row) => row.metrics.tool_calls)),
      failed_tool_calls: mean(rows.map((row) => row.metrics.failed_tool_calls)),
    },
    avg_error: mean(rows.map((row) => (row.error === null ? 0 : 1))),
    ...passTables(groups, n),
    pass_threshold: DEFAULT_PASS_THRESHOLD,
    usage:
      rows.length === 0
        ? null
        : {
            input_tokens: mean(rows.map((row) => row.token_usage.input_tokens)),
            output_tokens: mean(rows.map((row) => row.token_usage.output_tokens)),
          },
    version_info: { vf_version: null, vf_commit: null, env_version: null, env_commit: null },
    state_columns: [],
    tools: toolKeys.size === 1 ? (rows[0]?.tool_defs ?? null) : null,
    runbridge: {
      inputs: [...inputs],
      filters: { status: filters.status ?? null, min_group_variance: filters.minGroupVariance ?? null },
      rows: rows.length,
      token_checks: tokenChecks,
    },
  };
}

function mean(values: readonly number[]): number {
  return values.length === 0 ? 0 : values.reduce((sum, value) => sum + value, 0) / values.length;
}

/**
 * pass@k (at least one of k samples passes) and pass^k (all k pass), unbiased, averaged over the
 * groups that have all `n` samples, for k = 1, 2, 4, … ≤ n; empty when n is 1 or no group is whole.
 */
function passTables(
  groups: readonly RecordGroup[],
  n: number,
): { pass_at_k: Record<string, number>; pass_all_k: Record<string, number> } {
  const whole = groups.filter((group) => group.records.length === n);
  const passAt: Record<string, number> = {};
  const passAll: Record<string, number> = {};
  if (n < 2 || whole.length === 0) return { pass_at_k: passAt, pass_all_k: passAll };
  const passed = whole.map(
    (group) => group.records.filter((record) => rewardOf(record) >= DEFAULT_PASS_THRESHOLD).length,
  );
  for (let k = 1; k <= n; k *= 2) {
    passAt[String(k)] = mean(passed.map((c) => passAtK(n, c, k)));
    passAll[String(k)] = mean(passed.map((c) => passAllK(n, c, k)));
  }
  return { pass_at_k: passAt, pass_all_k: passAll };
}

/** `C(c, k) / C(n, k)`: the chance that k samples drawn without replacement from n, c of which passed, all pass. */
function passAllK(n: number, c: number, k: number): number {
  let all = 1;
  for (let i = 0; i < k; i++) all *= Math.max(0, c - i) / (n - i);
  return all;
}
