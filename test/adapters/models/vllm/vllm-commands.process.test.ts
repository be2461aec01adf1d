import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runRolloutExportCommand } from '../../../../src/commands/rollout-export-command.js';
import type { GrpoRow } from '../../../../src/rollouts/export/grpo-rows.js';
import type { VerifiersRow } from '../../../../src/rollouts/export/verifiers-rows.js';
import { manifestPathFor } from '../../../../src/rollouts/rollout-manifest.js';
import type { TrajectoryRecord } from '../../../../src/rollouts/trajectory-schema.js';
import { exportTestIo } from '../../../rollouts/export/export-test-io.js';
import { type RolloutRig, readManifestFile, readRecords, startRolloutRig } from '../../../rollouts/rollout-rig.js';
import type { FakePolicy, FakeVllmServer } from '../../../support/fake-vllm/fake-vllm-server.js';
import { startFakeVllmServer } from '../../../support/fake-vllm/fake-vllm-server.js';
import { spawnRunbridge } from '../../../support/spawn-runbridge.js';

const ROOT = fileURLToPath(new URL('../../../../', import.meta.url));

const call = (name: string, args: string) => `<tool_call>\n{"name": "${name}", "arguments": ${args}}\n</tool_call>`;

/** Computes, then submits an answer its seed picks, thinking before each: two turns a task. */
const POLICY: FakePolicy = ({ turn, seed }) =>
  turn === 1
    ? { text: `<think>\nCompute first.\n</think>\n\nComputing.\n${call('calculator', '{"expression": "6 * 7"}')}` }
    : { text: `<think>\nSubmit it.\n</think>\n\n${call('submit', `{"answer": ${42 + (seed % 2)}}`)}` };

/**
 * `runbridge rollout` with a `vllm:` model as a user runs it — a child process with `VLLM_BASE_URL`,
 * two worker threads — against the fake vLLM server; then both exports of what it wrote.
 */
describe('runbridge rollout --model vllm:…', () => {
  let fake: FakeVllmServer;
  let rig: RolloutRig;
  let out: string;
  let records: TrajectoryRecord[];

  beforeAll(async () => {
    fake = await startFakeVllmServer({ policy: POLICY });
    rig = await startRolloutRig();
    out = rig.path('vllm.jsonl');
    const child = spawnRunbridge(
      [
        'rollout',
        '--model',
        'vllm:Qwen/Qwen3-8B',
        '--env',
        'arith',
        '--tasks',
        '0:4',
        '--samples',
        '2',
        '--workers',
        '2',
        '--extra-body',
        '{"chat_template_kwargs": {"enable_thinking": true}}',
        '--policy-version',
        'step-0',
        '--out',
        out,
      ],
      { cwd: ROOT, env: { ...process.env, ORS_URL: rig.url, VLLM_BASE_URL: fake.url, RUNBRIDGE_MODEL: '' } },
    );
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const code = await new Promise<number | null>((resolve) => child.once('close', resolve));
    expect(code, output).toBe(0);
    records = readRecords(out);
  }, 120_000);
  afterAll(async () => {
    await fake.close();
    await rig.close();
  });

  /** The fake's generations of one rollout (its seed is its own), in turn order. */
  const generationsOf = (record: TrajectoryRecord) =>
    fake.generations.filter((generation) => generation.body.seed === record.sampling.seed);

  it('writes records whose every turn holds exactly the ids and logprobs the server took and sampled', () => {
    expect(records).toHaveLength(8);
    for (const record of records) {
      expect(record).toMatchObject({
        status: 'completed',
        stop_reason: 'finished',
        model: 'vllm:Qwen/Qwen3-8B',
        policy_version: 'step-0',
      });
      const generations = generationsOf(record);
      expect(generations).toHaveLength(2);
      expect(generations.every((generation) => generation.endpoint === 'completions')).toBe(true);
      record.steps.forEach((step, index) => {
        expect(step.prompt_token_ids).toEqual(generations[index]!.promptIds);
        expect(step.token_ids).toEqual(generations[index]!.completionIds);
        expect(step.logprobs).toEqual(generations[index]!.logprobs);
      });
      const [first, second] = generations;
      expect(second!.promptIds.slice(0, first!.promptIds.length + first!.completionIds.length)).toEqual([
        ...first!.promptIds,
        ...first!.completionIds,
      ]);
      expect(record.renderer).toMatchObject({ chat_template_kwargs: { enable_thinking: true }, tool_parser: 'hermes' });
    }
  });

  it('names the model, the policy and one renderer in the manifest, for every episode', () => {
    const manifest = readManifestFile(manifestPathFor(out));
    expect(manifest.results.renderers).toEqual([{ ...records[0]!.renderer, episodes: 8 }]);
    expect(manifest.config).toMatchObject({ model: 'vllm:Qwen/Qwen3-8B', policy_version: 'step-0' });
  });

  it('exports one exact grpo sequence per episode, and verifiers turns with the same ids', async () => {
    const grpo = rig.path('grpo.jsonl');
    const vf = rig.path('vf');
    for (const [format, target] of [
      ['grpo', grpo],
      ['verifiers', vf],
    ] as const) {
      const { io, out: stdout } = exportTestIo();
      expect(await runRolloutExportCommand([out, '--format', format, '--out', target], io)).toBe(0);
      expect(stdout()).toContain('token data: 8 ok, 0 mismatch, 0 incomplete, 0 without token ids');
    }
    const rows = readFileSync(grpo, 'utf8')
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as GrpoRow);
    expect(rows).toHaveLength(8);
    for (const row of rows) {
      const record = records.find((candidate) => candidate.rollout_id === row.rollout_id)!;
      const [first, second] = generationsOf(record);
      expect(row.token_ids).toEqual([...second!.promptIds, ...second!.completionIds]);
      const firstEnd = first!.promptIds.length + first!.completionIds.length;
      expect(row.token_mask).toEqual(
        row.token_ids!.map((_, position) =>
          (position >= first!.promptIds.length && position < firstEnd) || position >= second!.promptIds.length ? 1 : 0,
        ),
      );
      expect(row.token_logprobs!.filter((_, position) => row.token_mask![position] === 1)).toEqual([
        ...first!.logprobs,
        ...second!.logprobs,
      ]);
    }
    const results = readFileSync(`${vf}/results.jsonl`, 'utf8')
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as VerifiersRow);
    for (const row of results) {
      const record = records.find(
        (candidate) => (JSON.parse(row.info) as { rollout_id: string }).rollout_id === candidate.rollout_id,
      )!;
      expect(row.trajectory.map((step) => step.tokens?.completion_ids)).toEqual(
        generationsOf(record).map((generation) => generation.completionIds),
      );
    }
  });
});

describe('runbridge run --model vllm:…', () => {
  it('plays an episode token-in and prints its events', async () => {
    const fake = await startFakeVllmServer({ policy: POLICY });
    try {
      const child = spawnRunbridge(
        ['run', '--model', 'vllm:Qwen/Qwen3-8B', '--env', 'arith', '--index', '0', '--json'],
        {
          cwd: ROOT,
          env: { ...process.env, ORS_URL: '', VLLM_BASE_URL: fake.url, RUNBRIDGE_MODEL: '', RUNBRIDGE_API_KEYS: '' },
        },
      );
      let stdout = '';
      child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
      const code = await new Promise<number | null>((resolve) => child.once('close', resolve));
      expect(code).toBe(0);
      const events = stdout
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line) as { event: string; model?: string; stop_reason?: string });
      expect(events[0]).toMatchObject({ event: 'run.started', model: 'vllm:Qwen/Qwen3-8B' });
      expect(events.at(-1)).toMatchObject({ event: 'run.completed', stop_reason: 'finished' });
      expect(fake.generations.map((generation) => generation.endpoint)).toEqual(['completions', 'completions']);
    } finally {
      await fake.close();
    }
  }, 60_000);
});
