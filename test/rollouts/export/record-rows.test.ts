import { describe, expect, it } from 'vitest';
import { RecordRows } from '../../../src/rollouts/export/record-rows.js';
import { sampleRecord } from '../sample-record.js';

const BATCH = { indices: [0, 1], samples: 3 };

/** Every line `push` makes of one record. */
async function linesOf(rows: RecordRows, json: string, seq: number, emit = true): Promise<string[]> {
  const lines: string[] = [];
  for await (const line of rows.push(json, seq, emit)) lines.push(line);
  return lines;
}

describe('the grpo rows of a batch being streamed', () => {
  // A batch's log: task 0's samples at seq 0, 2, 4, task 1's at 1, 3, 5.
  const log = [0, 1, 2, 3, 4, 5].map((seq) =>
    JSON.stringify(sampleRecord(seq % 2, Math.floor(seq / 2), { reward: seq, output: `seq ${seq}` })),
  );

  it("keeps an open group's place, not its records: a whole group's samples are read back from the batch", async () => {
    const asked: number[] = [];
    const rows = new RecordRows('grpo', BATCH, async (seq) => {
      asked.push(seq);
      return log[seq];
    });
    for (const seq of [0, 1, 2, 3]) expect(await linesOf(rows, log[seq]!, seq)).toEqual([]);
    expect(asked).toEqual([]);

    const group = (await linesOf(rows, log[4]!, 4)).map((line) => JSON.parse(line) as Record<string, unknown>);
    // The other two samples come from the batch, in sample order, with the statistics of all three.
    expect(asked).toEqual([0, 2]);
    expect(group.map((row) => row.completion)).toHaveLength(3);
    expect(group.map((row) => row.reward)).toEqual([0, 2, 4]);
    expect(group[0]).toMatchObject({ group_size: 3, group_mean: 2, advantage: expect.closeTo(-1.2247, 3) });
  });

  it('counts the records before a cursor towards their groups without reading anything back', async () => {
    const asked: number[] = [];
    const rows = new RecordRows('grpo', BATCH, async (seq) => {
      asked.push(seq);
      return log[seq];
    });
    for (const seq of [0, 1, 2, 3, 4]) expect(await linesOf(rows, log[seq]!, seq, false)).toEqual([]);
    expect(await linesOf(rows, log[5]!, 5)).toHaveLength(3);
    expect(asked).toEqual([1, 3]);
  });
});
