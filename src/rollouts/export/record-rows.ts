import type { TrajectoryRecord } from '../trajectory-schema.js';
import { episodeTokens } from './episode-tokens.js';
import { hasImageContent } from './export-messages.js';
import { EXPORT_FORMATS } from './export-rollouts.js';
import { rewardOf } from './group-records.js';
import { GRPO_FLOAT_PATHS, toGrpoRows } from './grpo-rows.js';
import { toJsonLine } from './json-line.js';
import { OPENAI_CHAT_FLOAT_PATHS, toOpenAiChatRow } from './openai-chat-rows.js';
import { rewardStats } from './reward-stats.js';
import { toVerifiersRow, VERIFIERS_FLOAT_PATHS } from './verifiers-rows.js';

/** What a service batch's records stream as (`GET /v1/rollouts/:id/records?format=`): the records themselves, or an export's rows. */
export const RECORD_FORMATS = ['records', ...EXPORT_FORMATS] as const;
export type RecordFormat = (typeof RECORD_FORMATS)[number];

/**
 * Turns a batch's records, in the order they were settled, into the lines of a stream format: the
 * record's own JSON for `records`; for an export format the rows `runbridge rollout export` writes of
 * it — one per record for `openai-chat` and `verifiers`, and for `grpo` a task's whole group once all
 * its `samples` are in (its statistics need every sample). A record's images decide for itself whether
 * its content is written as parts, as there is no whole file to look at first.
 */
export class RecordRows {
  readonly #format: RecordFormat;
  readonly #samples: number;
  /** A task's position among the batch's tasks: the `example_id` of its verifiers rows. */
  readonly #examples: Map<number, number>;
  readonly #groups = new Map<string, TrajectoryRecord[]>();

  constructor(format: RecordFormat, batch: { indices: readonly number[]; samples: number }) {
    this.#format = format;
    this.#samples = batch.samples;
    this.#examples = new Map(batch.indices.map((index, position) => [index, position]));
  }

  /** The lines (each ended by a newline) that the next record, as JSON, adds; none while its grpo group is incomplete. */
  push(json: string): string[] {
    if (this.#format === 'records') return [`${json}\n`];
    const record = JSON.parse(json) as TrajectoryRecord;
    const asParts = hasImageContent(record);
    switch (this.#format) {
      case 'openai-chat':
        return [toJsonLine(toOpenAiChatRow(record, asParts), OPENAI_CHAT_FLOAT_PATHS)];
      case 'verifiers': {
        const example = this.#examples.get(record.task.index) ?? 0;
        const row = toVerifiersRow(record, example, episodeTokens(record), asParts);
        return [toJsonLine(row, VERIFIERS_FLOAT_PATHS)];
      }
      case 'grpo':
        return this.#grpo(record);
    }
  }

  #grpo(record: TrajectoryRecord): string[] {
    const members = [...(this.#groups.get(record.group_id) ?? []), record];
    if (members.length < this.#samples) {
      this.#groups.set(record.group_id, members);
      return [];
    }
    this.#groups.delete(record.group_id);
    const records = members.sort((a, b) => a.sample_index - b.sample_index);
    const group = { groupId: record.group_id, records, stats: rewardStats(records.map(rewardOf)) };
    return records.flatMap((member) =>
      toGrpoRows(member, group, episodeTokens(member), hasImageContent(member)).map((row) =>
        toJsonLine(row, GRPO_FLOAT_PATHS),
      ),
    );
  }
}
