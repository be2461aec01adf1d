import { describe, expect, it } from 'vitest';
import { ExportInputError } from '../../../src/rollouts/export/export-input-error.js';
import { groupRecords } from '../../../src/rollouts/export/group-records.js';
import type { SourcedRecord } from '../../../src/rollouts/export/read-trajectory-files.js';
import type { TrajectoryRecord } from '../../../src/rollouts/trajectory-schema.js';
import { sampleRecord } from '../sample-record.js';

/** A record of `env/train/index`, sample `sample`, read from `file` line `line`. */
function sourced(
  env: string,
  index: number,
  sample: number,
  overrides: Partial<TrajectoryRecord> = {},
  file = 'a.jsonl',
  line = 1,
): SourcedRecord {
  const base = sampleRecord(index, sample, overrides);
  return {
    record: { ...base, group_id: `${env}/train/${index}`, task: { ...base.task, env } },
    file,
    line,
  };
}

const keys = (result: ReturnType<typeof groupRecords>) =>
  result.groups.flatMap((group) => group.records.map((record) => `${record.group_id}#${record.sample_index}`));

describe('groupRecords', () => {
  it('orders groups by environment, split and numeric task index, and samples by index', () => {
    const result = groupRecords(
      [
        sourced('workspace', 0, 1),
        sourced('arith', 10, 0),
        sourced('arith', 2, 1),
        sourced('arith', 2, 0),
        sourced('workspace', 0, 0),
      ],
      {},
      { onePolicy: true },
    );
    expect(keys(result)).toEqual([
      'arith/train/2#0',
      'arith/train/2#1',
      'arith/train/10#0',
      'workspace/train/0#0',
      'workspace/train/0#1',
    ]);
  });

  it('computes each group’s statistics with unscored rewards as 0', () => {
    const result = groupRecords(
      [sourced('arith', 0, 0, { reward: 1 }), sourced('arith', 0, 1, { reward: null })],
      {},
      { onePolicy: true },
    );
    expect(result.groups[0]!.stats).toEqual({ mean: 0.5, variance: 0.25, std: 0.5 });
  });

  it('filters by status, then drops the groups whose variance is not above the minimum', () => {
    const result = groupRecords(
      [
        sourced('arith', 0, 0, { reward: 1 }),
        sourced('arith', 0, 1, { reward: 0 }),
        sourced('arith', 0, 2, { reward: 1, status: 'failed' }),
        sourced('arith', 1, 0, { reward: 1 }),
        sourced('arith', 1, 1, { reward: 1 }),
        sourced('arith', 1, 2, { reward: 0, status: 'failed' }),
      ],
      { status: 'completed', minGroupVariance: 0 },
      { onePolicy: true },
    );
    expect(keys(result)).toEqual(['arith/train/0#0', 'arith/train/0#1']);
    expect(result).toMatchObject({ read: 6, droppedByStatus: 2, droppedGroups: 1, droppedByVariance: 2 });
    const strict = groupRecords(
      [sourced('arith', 0, 0, { reward: 1 }), sourced('arith', 0, 1, { reward: 0 })],
      { minGroupVariance: 0.25 },
      { onePolicy: true },
    );
    expect(strict.groups).toEqual([]);
  });

  it('refuses a (task, sample) pair that appears twice, naming both places', () => {
    expect(() =>
      groupRecords(
        [sourced('arith', 3, 0, {}, 'a.jsonl', 4), sourced('arith', 3, 0, {}, 'b.jsonl', 9)],
        {},
        { onePolicy: false },
      ),
    ).toThrow(
      expect.objectContaining({
        name: 'ExportInputError',
        code: 'export_inputs_incompatible',
        message: expect.stringContaining('Sample 0 of arith/train/3 is in a.jsonl line 4 and again in b.jsonl line 9'),
      }),
    );
  });

  it('refuses mixed models or sampling settings where token data and advantages need one policy, and allows them otherwise', () => {
    const mixedModels = [
      sourced('arith', 0, 0),
      sourced('arith', 1, 0, { model: 'openai:gpt-4.1-mini' }, 'b.jsonl', 2),
    ];
    expect(() => groupRecords(mixedModels, {}, { onePolicy: true })).toThrow(
      /mix models: offline \(a\.jsonl line 1\) and openai:gpt-4\.1-mini \(b\.jsonl line 2\)/,
    );
    expect(groupRecords(mixedModels, {}, { onePolicy: false }).groups).toHaveLength(2);

    const mixedSampling = [
      sourced('arith', 0, 0, { sampling: { seed: 1, temperature: 1 } }),
      sourced('arith', 1, 0, { sampling: { seed: 2, temperature: 0.6 } }),
    ];
    expect(() => groupRecords(mixedSampling, {}, { onePolicy: true })).toThrow(
      /mix sampling settings: \{"temperature":1\}/,
    );
    // Seeds differ per rollout by design; they are not a difference in settings.
    const seedsOnly = [
      sourced('arith', 0, 0, { sampling: { seed: 1 } }),
      sourced('arith', 0, 1, { sampling: { seed: 2 } }),
    ];
    expect(groupRecords(seedsOnly, {}, { onePolicy: true }).groups).toHaveLength(1);
  });

  it('refuses records rendered by different templates, tokenizers or parsers where token data needs one', () => {
    const renderer = {
      model: 'Qwen/Qwen3-8B',
      template_fingerprint: 'sha256:aa',
      chat_template_kwargs: {},
      reasoning_parser: 'qwen3',
      tool_parser: 'hermes',
    };
    const mixed = [
      sourced('arith', 0, 0, { model: 'vllm:Qwen/Qwen3-8B', renderer }),
      sourced(
        'arith',
        1,
        0,
        { model: 'vllm:Qwen/Qwen3-8B', renderer: { ...renderer, template_fingerprint: 'sha256:bb' } },
        'b.jsonl',
        3,
      ),
    ];
    expect(() => groupRecords(mixed, {}, { onePolicy: true })).toThrow(
      /mix renderers: .*sha256:aa.* \(a\.jsonl line 1\) and .*sha256:bb.* \(b\.jsonl line 3\)/,
    );
    expect(groupRecords(mixed, {}, { onePolicy: false }).groups).toHaveLength(2);
    const same = [
      sourced('arith', 0, 0, { model: 'vllm:Qwen/Qwen3-8B', renderer }),
      sourced('arith', 1, 0, { model: 'vllm:Qwen/Qwen3-8B', renderer: { ...renderer } }),
    ];
    expect(groupRecords(same, {}, { onePolicy: true }).groups).toHaveLength(2);
  });

  it('refuses a group whose samples reduce tool rewards differently', () => {
    expect(() =>
      groupRecords(
        [sourced('arith', 0, 0), sourced('arith', 0, 1, { reward_reduction: 'sum' })],
        {},
        { onePolicy: false },
      ),
    ).toThrow(ExportInputError);
  });
});
