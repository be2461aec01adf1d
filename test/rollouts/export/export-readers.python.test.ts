import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runRolloutExportCommand } from '../../../src/commands/rollout-export-command.js';
import { generateRollouts } from '../../../src/rollouts/generate-rollouts.js';
import type { TrajectoryRecord } from '../../../src/rollouts/trajectory-schema.js';
import { offlineModel, type RolloutRig, readRecords, startRolloutRig } from '../rollout-rig.js';
import { exportTestIo } from './export-test-io.js';
import { type PythonReading, readWithPython } from './python-reader.js';

/** What a reader should see of `records`: one row per record, by environment, split, task and sample. */
function expectedRows(records: readonly TrajectoryRecord[]) {
  return [...records]
    .sort(
      (a, b) =>
        a.task.env.localeCompare(b.task.env) ||
        a.task.split.localeCompare(b.task.split) ||
        a.task.index - b.task.index ||
        a.sample_index - b.sample_index,
    )
    .map((record) => ({
      group_id: record.group_id,
      sample_index: record.sample_index,
      env: record.task.env,
      reward: record.reward ?? 0,
      scored: record.reward !== null,
    }));
}

/** Size, mean and population standard deviation of each group's rewards (unscored as 0). */
function expectedGroups(records: readonly TrajectoryRecord[]) {
  const rewards = new Map<string, number[]>();
  for (const record of records)
    rewards.set(record.group_id, [...(rewards.get(record.group_id) ?? []), record.reward ?? 0]);
  return Object.fromEntries(
    [...rewards].map(([group, values]) => {
      const mean = values.reduce((sum, value) => sum + value, 0) / values.length;
      const std = Math.sqrt(values.reduce((sum, value) => sum + (value - mean) ** 2, 0) / values.length);
      return [group, { size: values.length, mean, std }];
    }),
  );
}

/** The reading matches the raw records: counts, order, rewards, groups — and every column holds one type. */
function expectReadingOf(reading: PythonReading, records: readonly TrajectoryRecord[]) {
  expect(reading.count).toBe(records.length);
  expect(reading.rows).toEqual(expectedRows(records));
  const groups = expectedGroups(records);
  expect(Object.keys(reading.groups).sort()).toEqual(Object.keys(groups).sort());
  for (const [group, stats] of Object.entries(groups)) {
    expect(reading.groups[group]!.size).toBe(stats.size);
    expect(reading.groups[group]!.mean).toBeCloseTo(stats.mean, 12);
    expect(reading.groups[group]!.std).toBeCloseTo(stats.std, 12);
  }
  for (const [column, seen] of Object.entries(reading.columns)) {
    expect(seen.types.length, `column ${column} holds ${seen.types.join(' and ')}`).toBeLessThanOrEqual(1);
    if (seen.present_in_every_row !== undefined) expect(seen.present_in_every_row, `column ${column}`).toBe(true);
  }
  expect(reading.columns.reward!.types).toEqual(['float']);
}

describe('rollout exports read by Python and pandas, two environments at once', () => {
  let rig: RolloutRig;
  let arith: string;
  let workspace: string;
  let raw: TrajectoryRecord[];
  let rawBytes: string[];

  beforeAll(async () => {
    rig = await startRolloutRig();
    arith = rig.path('arith.jsonl');
    workspace = rig.path('workspace.jsonl');
    // Temperature 1 makes the offline model miss now and then, so some groups have mixed rewards.
    for (const [env, out] of [
      ['arith', arith],
      ['workspace', workspace],
    ] as const) {
      await generateRollouts({
        ors: rig.ors,
        model: offlineModel(),
        env,
        tasks: '0:4',
        samples: 4,
        concurrency: 4,
        sampling: { temperature: 1 },
        out,
      });
    }
    raw = [...readRecords(arith), ...readRecords(workspace)];
    rawBytes = [readFileSync(arith, 'utf8'), readFileSync(workspace, 'utf8')];
  }, 120_000);
  afterAll(() => rig.close());

  async function exportTo(format: string, out: string, ...extra: string[]): Promise<void> {
    const { io, err } = exportTestIo();
    const code = await runRolloutExportCommand([workspace, arith, '--format', format, '--out', out, ...extra], io);
    expect(err()).toBe('');
    expect(code).toBe(0);
  }

  it('the raw files hold both environments, groups with mixed rewards and groups without', () => {
    expect(new Set(raw.map((record) => record.task.env))).toEqual(new Set(['arith', 'workspace']));
    const spreads = Object.values(expectedGroups(raw)).map((group) => group.std > 0);
    expect(spreads).toContain(true);
    expect(spreads).toContain(false);
  });

  it.each(['stdlib', 'pandas'] as const)(
    'openai-chat loads with %s: one row per episode, messages and tools',
    async (reader) => {
      const out = rig.path(`chat-${reader}.jsonl`);
      await exportTo('openai-chat', out);
      const reading = await readWithPython(reader, 'openai-chat', out);
      expectReadingOf(reading, raw);
      expect(Object.keys(reading.columns).slice(0, 2)).toEqual(['messages', 'tools']);
      expect(reading.columns.task!.types).toEqual(['str']);
      expect(reading.columns.messages!.types).toEqual(['list']);
    },
  );

  it.each(['stdlib', 'pandas'] as const)(
    'grpo loads with %s, and its group statistics are the reader’s own',
    async (reader) => {
      const out = rig.path(`grpo-${reader}.jsonl`);
      await exportTo('grpo', out);
      const reading = await readWithPython(reader, 'grpo', out);
      expectReadingOf(reading, raw);
      expect(reading.declared_match).toBe(true);
      for (const column of ['group_mean', 'group_std', 'advantage'])
        expect(reading.columns[column]!.types).toEqual(['float']);
      expect(reading.columns.token_check!.types).toEqual(['str']);
    },
  );

  it.each(['stdlib', 'pandas'] as const)(
    'verifiers loads with %s: results.jsonl by example, metadata.json',
    async (reader) => {
      const out = rig.path(`verifiers-${reader}`);
      await exportTo('verifiers', out);
      const reading = await readWithPython(reader, 'verifiers', out);
      expectReadingOf(reading, raw);
      expect(reading.columns.info!.types).toEqual(['str']);
      expect(reading.columns.answer!.types).toEqual(['str']);
      expect(reading.metadata).toMatchObject({
        env_id: 'arith,workspace',
        model: 'offline',
        num_examples: 8,
        rollouts_per_example: 4,
        sampling_args: { temperature: 1 },
      });
      expect((reading.metadata as { avg_reward: number }).avg_reward).toBeCloseTo(
        raw.reduce((sum, record) => sum + (record.reward ?? 0), 0) / raw.length,
        12,
      );
      // verifiers groups the samples of one example by example_id.
      const rows = readFileSync(`${out}/results.jsonl`, 'utf8')
        .trimEnd()
        .split('\n')
        .map((line) => JSON.parse(line) as { example_id: number; info: string });
      const exampleOf = new Map<string, Set<number>>();
      for (const row of rows) {
        const group = (JSON.parse(row.info) as { group_id: string }).group_id;
        exampleOf.set(group, (exampleOf.get(group) ?? new Set()).add(row.example_id));
      }
      expect([...exampleOf.values()].map((ids) => [...ids])).toEqual([0, 1, 2, 3, 4, 5, 6, 7].map((id) => [id]));
    },
  );

  it('--status completed --min-group-variance 0 keeps the completed samples of groups that scored differently', async () => {
    const out = rig.path('grpo-filtered.jsonl');
    await exportTo('grpo', out, '--status', 'completed', '--min-group-variance', '0');
    const completed = raw.filter((record) => record.status === 'completed');
    const varied = new Set(
      Object.entries(expectedGroups(completed))
        .filter(([, group]) => group.std > 0)
        .map(([group]) => group),
    );
    const kept = completed.filter((record) => varied.has(record.group_id));
    expect(kept.length).toBeGreaterThan(0);
    expect(kept.length).toBeLessThan(raw.length);
    expectReadingOf(await readWithPython('pandas', 'grpo', out), kept);
  });

  it('the same inputs give byte-identical files, and the raw records are left untouched', async () => {
    for (const format of ['openai-chat', 'grpo'] as const) {
      await exportTo(format, rig.path(`${format}-1.jsonl`));
      await exportTo(format, rig.path(`${format}-2.jsonl`));
      expect(readFileSync(rig.path(`${format}-2.jsonl`))).toEqual(readFileSync(rig.path(`${format}-1.jsonl`)));
    }
    await exportTo('verifiers', rig.path('vf-1'));
    await exportTo('verifiers', rig.path('vf-2'));
    for (const file of ['results.jsonl', 'metadata.json'])
      expect(readFileSync(rig.path(`vf-2/${file}`))).toEqual(readFileSync(rig.path(`vf-1/${file}`)));
    expect([readFileSync(arith, 'utf8'), readFileSync(workspace, 'utf8')]).toEqual(rawBytes);
  });
});
