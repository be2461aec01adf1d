import { describe, expect, it } from 'vitest';
import { episodeTokens } from '../../../src/rollouts/export/episode-tokens.js';
import { toGrpoRows } from '../../../src/rollouts/export/grpo-rows.js';
import { rewardStats } from '../../../src/rollouts/export/reward-stats.js';
import { sampleRecord, sampleStep as step } from '../sample-record.js';

function rowsOf(steps: ReturnType<typeof step>[]) {
  const record = sampleRecord(0, 0, { steps });
  const group = { size: 1, stats: rewardStats([1]) };
  return toGrpoRows(record, group, episodeTokens(record), false);
}

describe('toGrpoRows', () => {
  it('writes an episode that is one sequence as one row', () => {
    const rows = rowsOf([
      step(1, { prompt_token_ids: [1], token_ids: [2], logprobs: [-0.2] }),
      step(2, { prompt_token_ids: [1, 2, 3], token_ids: [4], logprobs: [-0.4] }),
    ]);
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({
      token_check: 'ok',
      sequence: 0,
      sequences: 1,
      sequence_turns: [1, 2],
      sequence_reason: null,
      prompt_length: 1,
      token_ids: [1, 2, 3, 4],
      token_mask: [0, 1, 0, 1],
      token_logprobs: [0, -0.2, 0, -0.4],
    });
  });

  it('writes an episode that had to start a new sequence as one row per sequence, never one wrong sequence', () => {
    const rows = rowsOf([
      step(1, { prompt_token_ids: [1], token_ids: [2], logprobs: [-0.2], finish_reason: 'length' }),
      step(2, { prompt_token_ids: [1, 5, 3], token_ids: [4], logprobs: [-0.4], new_sequence: { reason: 'truncated' } }),
    ]);
    expect(
      rows.map((row) => [row.sequence, row.sequences, row.sequence_reason, row.token_ids, row.token_mask]),
    ).toEqual([
      [0, 2, null, [1, 2], [0, 1]],
      [1, 2, 'truncated', [1, 5, 3, 4], [0, 0, 0, 1]],
    ]);
    expect(rows.every((row) => row.reward === 1 && row.rollout_id === rows[0]!.rollout_id)).toBe(true);
  });

  it('writes one row without a sequence when the check is not ok', () => {
    const rows = rowsOf([
      step(1, { prompt_token_ids: [1], token_ids: [2] }),
      step(2, { prompt_token_ids: [9], token_ids: [3] }),
    ]);
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({
      token_check: 'mismatch',
      sequence: 0,
      sequences: 1,
      sequence_turns: null,
      token_ids: null,
    });
  });
});
