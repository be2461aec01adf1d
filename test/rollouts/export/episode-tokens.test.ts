import { describe, expect, it } from 'vitest';
import { episodeTokens, stepTokens } from '../../../src/rollouts/export/episode-tokens.js';
import type { TrajectoryStep } from '../../../src/rollouts/trajectory-schema.js';
import { sampleRecord, sampleStep as step } from '../sample-record.js';

const withSteps = (...steps: TrajectoryStep[]) => sampleRecord(0, 0, { steps });

describe('episodeTokens', () => {
  it('says none when no turn carries token ids, or there is no turn', () => {
    expect(episodeTokens(withSteps(step(1, {}), step(2, {})))).toEqual({ check: 'none', issue: null, sequences: [] });
    expect(episodeTokens(withSteps())).toEqual({ check: 'none', issue: null, sequences: [] });
  });

  it('lays turns whose prompts extend each other end to end, masking what the model generated', () => {
    const tokens = episodeTokens(
      withSteps(
        step(1, { prompt_token_ids: [1, 2], token_ids: [3, 4], logprobs: [-0.1, -0.2] }),
        step(2, { prompt_token_ids: [1, 2, 3, 4, 5, 6], token_ids: [7], logprobs: [-0.3] }),
      ),
    );
    expect(tokens).toEqual({
      check: 'ok',
      issue: null,
      sequences: [
        {
          ids: [1, 2, 3, 4, 5, 6, 7],
          mask: [0, 0, 1, 1, 0, 0, 1],
          logprobs: [0, 0, -0.1, -0.2, 0, 0, -0.3],
          promptLength: 2,
          turns: [1, 2],
          reason: null,
        },
      ],
    });
  });

  it('keeps the sequence but no logprobs when a turn came without them', () => {
    const tokens = episodeTokens(
      withSteps(
        step(1, { prompt_token_ids: [1], token_ids: [2], logprobs: [-0.1] }),
        step(2, { prompt_token_ids: [1, 2, 3], token_ids: [4] }),
      ),
    );
    expect(tokens.check).toBe('ok');
    expect(tokens.sequences).toMatchObject([{ ids: [1, 2, 3, 4], mask: [0, 1, 0, 1], logprobs: null }]);
  });

  it('reports each turn whose prompt does not extend the previous prompt and completion, and builds nothing', () => {
    const tokens = episodeTokens(
      withSteps(
        step(1, { prompt_token_ids: [1, 2], token_ids: [3, 4] }),
        step(2, { prompt_token_ids: [1, 2, 9, 4, 5], token_ids: [6] }),
        step(3, { prompt_token_ids: [1, 2, 9, 4, 5], token_ids: [7] }),
      ),
    );
    expect(tokens).toEqual({
      check: 'mismatch',
      issue:
        "turn 2's prompt ids do not extend turn 1's prompt and completion: they differ at position 2 of 4 (expected id 3, got 9); " +
        "turn 3's prompt ids do not extend turn 2's prompt and completion: the prompt has 5 ids, fewer than the 6 before it",
      sequences: [],
    });
  });

  it('starts a new sequence at a turn that says it began one, and lays each sequence out on its own', () => {
    const tokens = episodeTokens(
      withSteps(
        step(1, { prompt_token_ids: [1, 2], token_ids: [3, 4], logprobs: [-0.1, -0.2] }),
        step(2, { prompt_token_ids: [1, 2, 3, 4, 5], token_ids: [6], logprobs: [-0.3], finish_reason: 'length' }),
        step(3, {
          prompt_token_ids: [1, 2, 9, 9, 5, 6, 7],
          token_ids: [8],
          logprobs: [-0.4],
          new_sequence: { reason: 'truncated' },
        }),
        step(4, { prompt_token_ids: [1, 2, 9, 9, 5, 6, 7, 8, 10], token_ids: [11], logprobs: [-0.5] }),
      ),
    );
    expect(tokens).toEqual({
      check: 'ok',
      issue: null,
      sequences: [
        {
          ids: [1, 2, 3, 4, 5, 6],
          mask: [0, 0, 1, 1, 0, 1],
          logprobs: [0, 0, -0.1, -0.2, 0, -0.3],
          promptLength: 2,
          turns: [1, 2],
          reason: null,
        },
        {
          ids: [1, 2, 9, 9, 5, 6, 7, 8, 10, 11],
          mask: [0, 0, 0, 0, 0, 0, 0, 1, 0, 1],
          logprobs: [0, 0, 0, 0, 0, 0, 0, -0.4, 0, -0.5],
          promptLength: 7,
          turns: [3, 4],
          reason: 'truncated',
        },
      ],
    });
  });

  it('still checks the turns within each sequence', () => {
    const tokens = episodeTokens(
      withSteps(
        step(1, { prompt_token_ids: [1], token_ids: [2] }),
        step(2, { prompt_token_ids: [7], token_ids: [8], new_sequence: { reason: 'approval_edit' } }),
        step(3, { prompt_token_ids: [7, 9], token_ids: [10] }),
      ),
    );
    expect(tokens.check).toBe('mismatch');
    expect(tokens.issue).toBe(
      "turn 3's prompt ids do not extend turn 2's prompt and completion: they differ at position 1 of 2 (expected id 8, got 9)",
    );
  });

  it('says what is missing when a turn lacks ids or has a logprob count that does not match', () => {
    expect(
      episodeTokens(
        withSteps(
          step(1, { prompt_token_ids: [1], token_ids: [2] }),
          step(2, { token_ids: [3] }),
          step(3, { prompt_token_ids: [1] }),
          step(4, { prompt_token_ids: [1], token_ids: [2, 3], logprobs: [-1] }),
        ),
      ),
    ).toEqual({
      check: 'incomplete',
      issue:
        'turn 2 has no prompt token ids; turn 3 has no completion token ids; turn 4 has 1 logprobs for 2 completion token ids',
      sequences: [],
    });
  });
});

describe('stepTokens', () => {
  it('gives one turn’s ids and masks in verifiers’ layout, or null without all of ids and logprobs', () => {
    expect(
      stepTokens(step(1, { prompt_token_ids: [1, 2], token_ids: [3], logprobs: [-0.5], finish_reason: 'length' })),
    ).toEqual({
      prompt_ids: [1, 2],
      prompt_mask: [0, 0],
      completion_ids: [3],
      completion_mask: [1],
      completion_logprobs: [-0.5],
      overlong_prompt: false,
      is_truncated: true,
      routed_experts: null,
    });
    expect(stepTokens(step(1, { prompt_token_ids: [1], token_ids: [3] }))).toBeNull();
    expect(stepTokens(step(1, { prompt_token_ids: [1], token_ids: [3, 4], logprobs: [-1] }))).toBeNull();
  });
});
