import { canonicalJson } from '../canonical-json.js';
import type { TrajectoryRecord, TrajectoryStatus } from '../trajectory-schema.js';
import { ExportInputError } from './export-input-error.js';
import type { SourcedRecord } from './read-trajectory-files.js';
import { type RewardStats, rewardStats } from './reward-stats.js';

/** Which records an export keeps (`docs/trajectory.md`, "Export"). */
export interface ExportFilters {
  /** Keep only records with this status. */
  status?: TrajectoryStatus;
  /** Keep only groups whose reward variance is greater than this; 0 drops the groups whose samples all scored the same. */
  minGroupVariance?: number;
}

/** The samples of one task, in sample order, with the statistics of their rewards. */
export interface RecordGroup {
  groupId: string;
  records: TrajectoryRecord[];
  stats: RewardStats;
}

/** The groups to export, in export order, and what the filters dropped. */
export interface GroupedRecords {
  groups: RecordGroup[];
  /** Records read from the inputs. */
  read: number;
  /** Records dropped by `status`. */
  droppedByStatus: number;
  /** Groups, and the records in them, dropped by `minGroupVariance`. */
  droppedGroups: number;
  droppedByVariance: number;
}

/** A record's reward as a float: an unscored episode (null reward) counts as 0, as in the manifest. */
export function rewardOf(record: TrajectoryRecord): number {
  return record.reward ?? 0;
}

/**
 * Checks that `sourced` can be exported together, filters it and groups it by task. Groups come in
 * order of environment, split and task index (strings compared by code unit, so every machine agrees),
 * samples in sample order. Throws an {@link ExportInputError} (`export_inputs_incompatible`) when a
 * (task, sample) pair appears twice, when one group's samples were reduced to rewards differently,
 * and — with `onePolicy`, for exports that carry token data and advantages — when the records mix
 * models, renderers (tokenizer, chat template and parsers) or sampling settings (the per-rollout seed aside).
 */
export function groupRecords(
  sourced: readonly SourcedRecord[],
  filters: ExportFilters,
  options: { onePolicy: boolean },
): GroupedRecords {
  refuseDuplicates(sourced);
  const kept =
    filters.status === undefined ? sourced : sourced.filter(({ record }) => record.status === filters.status);
  if (options.onePolicy) refuseMixedPolicies(kept);

  const byGroup = new Map<string, SourcedRecord[]>();
  for (const item of kept) {
    const members = byGroup.get(item.record.group_id);
    if (members) members.push(item);
    else byGroup.set(item.record.group_id, [item]);
  }
  const groups: RecordGroup[] = [];
  let droppedGroups = 0;
  let droppedByVariance = 0;
  for (const members of [...byGroup.values()].sort((a, b) => compareTasks(a[0]!.record, b[0]!.record))) {
    refuseMixedReductions(members);
    const records = members.map(({ record }) => record).sort((a, b) => a.sample_index - b.sample_index);
    const stats = rewardStats(records.map(rewardOf));
    if (filters.minGroupVariance !== undefined && !(stats.variance > filters.minGroupVariance)) {
      droppedGroups++;
      droppedByVariance += records.length;
      continue;
    }
    groups.push({ groupId: records[0]!.group_id, records, stats });
  }
  return {
    groups,
    read: sourced.length,
    droppedByStatus: sourced.length - kept.length,
    droppedGroups,
    droppedByVariance,
  };
}

function compareTasks(a: TrajectoryRecord, b: TrajectoryRecord): number {
  return (
    compareStrings(a.task.env, b.task.env) ||
    compareStrings(a.task.split, b.task.split) ||
    a.task.index - b.task.index ||
    compareStrings(a.group_id, b.group_id)
  );
}

function compareStrings(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

function where(item: SourcedRecord): string {
  return `${item.file} line ${item.line}`;
}

function refuseDuplicates(sourced: readonly SourcedRecord[]): void {
  const seen = new Map<string, SourcedRecord>();
  for (const item of sourced) {
    const key = `${item.record.group_id}#${item.record.sample_index}`;
    const first = seen.get(key);
    if (first) {
      throw new ExportInputError(
        `Sample ${item.record.sample_index} of ${item.record.group_id} is in ${where(first)} and again in ` +
          `${where(item)}: these inputs overlap (the same file twice, or two batches of the same tasks). ` +
          'Export one of them, or give the batches different tasks. Nothing was written.',
        'export_inputs_incompatible',
      );
    }
    seen.set(key, item);
  }
}

function refuseMixedPolicies(sourced: readonly SourcedRecord[]): void {
  const first = sourced[0];
  if (first === undefined) return;
  const sampling = samplingWithoutSeed(first.record);
  const renderer = canonicalJson(first.record.renderer ?? null);
  for (const item of sourced) {
    if (item.record.model !== first.record.model) {
      throw new ExportInputError(
        `The inputs mix models: ${first.record.model} (${where(first)}) and ${item.record.model} (${where(item)}). ` +
          'This format carries token ids, logprobs and group advantages, which mean nothing across models: ' +
          "export each model's files separately (openai-chat exports may mix models). Nothing was written.",
        'export_inputs_incompatible',
      );
    }
    const otherRenderer = canonicalJson(item.record.renderer ?? null);
    if (otherRenderer !== renderer) {
      throw new ExportInputError(
        `The inputs mix renderers: ${renderer} (${where(first)}) and ${otherRenderer} (${where(item)}). ` +
          "Their token ids come from different tokenizers, chat templates or parsers (or from a server's and none), " +
          'which one trainer cannot take together: export the files of each separately. Nothing was written.',
        'export_inputs_incompatible',
      );
    }
    const other = samplingWithoutSeed(item.record);
    if (other !== sampling) {
      throw new ExportInputError(
        `The inputs mix sampling settings: ${sampling} (${where(first)}) and ${other} (${where(item)}). ` +
          'This format carries logprobs and group advantages, which belong to one sampling configuration: ' +
          'export the files of each configuration separately (openai-chat exports may mix them). Nothing was written.',
        'export_inputs_incompatible',
      );
    }
  }
}

function refuseMixedReductions(members: readonly SourcedRecord[]): void {
  const first = members[0]!;
  const other = members.find((item) => item.record.reward_reduction !== first.record.reward_reduction);
  if (other === undefined) return;
  throw new ExportInputError(
    `The samples of ${first.record.group_id} reduce tool rewards differently: ${first.record.reward_reduction} ` +
      `(${where(first)}) and ${other.record.reward_reduction} (${where(other)}), so their rewards cannot be ` +
      'compared within the group. Export those batches separately. Nothing was written.',
    'export_inputs_incompatible',
  );
}

/** The record's sampling settings without its per-rollout seed, as JSON with sorted keys. */
function samplingWithoutSeed(record: TrajectoryRecord): string {
  const { seed: _seed, ...rest } = record.sampling;
  return canonicalJson(rest);
}
