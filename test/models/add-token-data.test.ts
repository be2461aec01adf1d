import { describe, expect, it } from 'vitest';
import { addTokenData } from '../../src/models/add-token-data.js';
import type { TokenData } from '../../src/models/model.js';

/** How a model's `token-data` parts add up into the turn's token data (src/models/model.ts). */
describe('addTokenData', () => {
  it('appends each list in order, raw lists too, and never changes a part', () => {
    const first: TokenData = { promptTokenIds: [1, 2], tokenIds: [3], logprobs: [-0.1], raw: [{ t: 'a' }] };
    const second: TokenData = { tokenIds: [4, 5], logprobs: [-0.2, -0.3], raw: [{ t: 'b' }, { t: 'c' }] };
    const sum = addTokenData(addTokenData(undefined, first), second);
    expect(sum).toEqual({
      promptTokenIds: [1, 2],
      tokenIds: [3, 4, 5],
      logprobs: [-0.1, -0.2, -0.3],
      raw: [{ t: 'a' }, { t: 'b' }, { t: 'c' }],
    });
    expect(first).toEqual({ promptTokenIds: [1, 2], tokenIds: [3], logprobs: [-0.1], raw: [{ t: 'a' }] });
  });

  it('carries newSequence and renderer, a later part’s replacing an earlier one’s', () => {
    const renderer = {
      model: 'm',
      templateFingerprint: 'f1',
      chatTemplateKwargs: {},
      reasoningParser: 'qwen3',
      toolParser: 'hermes',
    };
    const first = addTokenData(undefined, { tokenIds: [1], newSequence: { reason: 'truncated' }, renderer });
    expect(first).toEqual({ tokenIds: [1], newSequence: { reason: 'truncated' }, renderer });
    const later = { ...renderer, templateFingerprint: 'f2' };
    const sum = addTokenData(first, { tokenIds: [2], newSequence: { reason: 'approval_edit' }, renderer: later });
    expect(sum).toEqual({ tokenIds: [1, 2], newSequence: { reason: 'approval_edit' }, renderer: later });
    expect(addTokenData(sum, { tokenIds: [3] })).toMatchObject({
      newSequence: { reason: 'approval_edit' },
      renderer: later,
    });
  });

  it('replaces a raw value that is not a list', () => {
    expect(addTokenData({ raw: { a: 1 } }, { raw: { b: 2 } })).toEqual({ raw: { b: 2 } });
  });

  it('takes a list longer than the engine takes arguments', () => {
    const ids = Array.from({ length: 300_000 }, (_, i) => i);
    expect(addTokenData(addTokenData(undefined, { tokenIds: ids }), { tokenIds: ids }).tokenIds).toHaveLength(600_000);
  });
});
