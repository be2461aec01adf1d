import type { TrajectoryRecord } from '../trajectory-schema.js';
import { episodeTokens } from './episode-tokens.js';
import type { RecordFormat } from './export-format-names.js';
import { hasImageContent } from './export-messages.js';
import { rewardOf } from './group-records.js';
import { GRPO_FLOAT_PATHS, toGrpoRows } from './grpo-rows.js';
import { toJsonLine } from './json-line.js';
import { OPENAI_CHAT_FLOAT_PATHS, toOpenAiChatRow } from './openai-chat-rows.js';
import { rewardStats } from './reward-stats.js';
import { toVerifiersRow, VERIFIERS_FLOAT_PATHS } from './verifiers-rows.js';

export { RECORD_FORMATS, type RecordFormat } from './export-format-names.js';

/** Reads the batch's record (JSON) at `seq` again, from where the batch keeps its records. */
export type ReadRecord = (seq: number) => Promise<string | undefined>;

/** Where one sample of a grpo group that is not whole yet lies in the batch's log, and its reward. */
interface Member {
  seq: number;
  sample: number;
  reward: number;
}

/**
 * Turns a batch's records, in the order they were settled, into the lines of a stream format: the
 * record's own JSON for `records`; for an export format the rows `runbridge rollout export` writes of
 * it — one per record for `openai-chat` and `verifiers`, and for `grpo` a task's whole group once all
 * its `samples` are in (its statistics need every sample). A record's images decide for itself whether
 * its content is written as parts, as there is no whole file to look at first.
 *
 * Of a grpo group not yet whole it keeps where each sample lies and its reward, never the record: every
 * reader of a batch would otherwise hold its own parsed copy of every open group (issue 42). Once the
 * group is whole its records are read back from the batch one at a time, as its rows are written.
 */
export class RecordRows {
  readonly #format: RecordFormat;
  readonly #samples: number;
  readonly #read: ReadRecord;
  /** A task's position among the batch's tasks: the `example_id` of its verifiers rows. */
  readonly #examples: Map<number, number>;
  readonly #groups = new Map<string, Member[]>();

  constructor(format: RecordFormat, batch: { indices: readonly number[]; samples: number }, read: ReadRecord) {
    this.#format = format;
    this.#samples = batch.samples;
    this.#read = read;
    this.#examples = new Map(batch.indices.map((index, position) => [index, position]));
  }

  /**
   * The lines (each ended by a newline) that the record `json` at `seq` adds, one at a time, so a
   * caller can stop between two; none while its grpo group is incomplete. With `emit` false the record
   * only counts towards its group (a reader resuming after it), and nothing is made.
   */
  async *push(json: string, seq: number, emit = true): AsyncGenerator<string> {
    if (this.#format === 'records') {
      if (emit) yield `${json}\n`;
      return;
    }
    if (this.#format === 'grpo') {
      yield* this.#grpo(json, seq, emit);
      return;
    }
    if (!emit) return;
    const record = JSON.parse(json) as TrajectoryRecord;
    const asParts = hasImageContent(record);
    if (this.#format === 'openai-chat') {
      yield toJsonLine(toOpenAiChatRow(record, asParts), OPENAI_CHAT_FLOAT_PATHS);
      return;
    }
    const example = this.#examples.get(record.task.index) ?? 0;
    yield toJsonLine(toVerifiersRow(record, example, episodeTokens(record), asParts), VERIFIERS_FLOAT_PATHS);
  }

  async *#grpo(json: string, seq: number, emit: boolean): AsyncGenerator<string> {
    const record = JSON.parse(json) as TrajectoryRecord;
    const members = this.#groups.get(record.group_id) ?? [];
    members.push({ seq, sample: record.sample_index, reward: rewardOf(record) });
    if (members.length < this.#samples) {
      this.#groups.set(record.group_id, members);
      return;
    }
    this.#groups.delete(record.group_id);
    if (!emit) return;
    members.sort((a, b) => a.sample - b.sample);
    const group = { size: members.length, stats: rewardStats(members.map((member) => member.reward)) };
    for (const member of members) {
      const text = member.seq === seq ? json : await this.#read(member.seq);
      // Forgotten while it was written: the batch is gone, and its reader ends with it.
      if (text === undefined) return;
      const row = member.seq === seq ? record : (JSON.parse(text) as TrajectoryRecord);
      for (const line of toGrpoRows(row, group, episodeTokens(row), hasImageContent(row))) {
        yield toJsonLine(line, GRPO_FLOAT_PATHS);
      }
    }
  }
}
