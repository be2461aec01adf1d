import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { arithTask } from '../../../adapters/environments/arith/arith-tasks.js';
import { createOpenAiChatProvider } from '../../../adapters/models/openai-chat/openai-chat-provider.js';
import { runRolloutExportCommand } from '../../../src/commands/rollout-export-command.js';
import type { GrpoRow } from '../../../src/rollouts/export/grpo-rows.js';
import type { VerifiersRow } from '../../../src/rollouts/export/verifiers-rows.js';
import { generateRollouts } from '../../../src/rollouts/generate-rollouts.js';
import type { TrajectoryRecord } from '../../../src/rollouts/trajectory-schema.js';
import { type RolloutRig, readRecords, startRolloutRig } from '../rollout-rig.js';
import { exportTestIo } from './export-test-io.js';
import {
  type FakeVllmExchange,
  type FakeVllmRequest,
  type FakeVllmServer,
  type FakeVllmTurn,
  startFakeVllmServer,
} from './fake-vllm-server.js';
import { readWithPython } from './python-reader.js';

const QUESTIONS = Array.from({ length: 6 }, (_, index) => arithTask('train', index));

/**
 * A model that computes with the calculator, then submits — the right answer when the rollout's seed
 * is even, a wrong one otherwise, so groups score differently. With `reasoning` it thinks every turn.
 */
function arithPolicy(reasoning: () => boolean) {
  return (request: FakeVllmRequest): FakeVllmTurn => {
    const user = request.messages.find((message) => message.role === 'user');
    const task = QUESTIONS.find((candidate) => String(user?.content).startsWith(candidate.question));
    const thought = reasoning() ? { reasoning: 'I compute first, then submit.' } : {};
    if (!request.messages.some((message) => message.role === 'tool')) {
      return {
        ...thought,
        content: 'Let me compute.',
        toolCalls: [{ name: 'calculator', arguments: '{"expression": "2 + 2"}' }],
      };
    }
    const answer = (request.seed ?? 0) % 2 === 0 ? task?.answer : -1;
    return { ...thought, toolCalls: [{ name: 'submit', arguments: JSON.stringify({ answer }) }] };
  };
}

describe('token data exported from rollouts against a fake vLLM server', () => {
  let rig: RolloutRig;
  let vllm: FakeVllmServer;
  let reasoning = false;
  let plain: string;
  let thinking: string;
  let records: TrajectoryRecord[];

  beforeAll(async () => {
    rig = await startRolloutRig();
    vllm = await startFakeVllmServer(arithPolicy(() => reasoning));
    const model = createOpenAiChatProvider({ apiKey: 'test', baseUrl: `${vllm.url}/v1`, maxRetries: 0 }).create(
      'Qwen/Qwen3-8B',
    );
    const sampling = { temperature: 1, extra_body: { return_token_ids: true, logprobs: true } };
    plain = rig.path('plain.jsonl');
    thinking = rig.path('thinking.jsonl');
    await generateRollouts({ ors: rig.ors, model, env: 'arith', tasks: '0:3', samples: 2, sampling, out: plain });
    reasoning = true;
    await generateRollouts({ ors: rig.ors, model, env: 'arith', tasks: '3:6', samples: 2, sampling, out: thinking });
    records = [...readRecords(plain), ...readRecords(thinking)];
  }, 120_000);
  afterAll(async () => {
    await vllm.close();
    await rig.close();
  });

  /** The fake's exchanges of one rollout (its seed is unique), in turn order. */
  function exchangesOf(record: TrajectoryRecord): FakeVllmExchange[] {
    return vllm.exchanges.filter((exchange) => exchange.request.seed === record.sampling.seed);
  }

  async function exportTo(format: string, out: string): Promise<string> {
    const { io, out: stdout, err } = exportTestIo();
    expect(await runRolloutExportCommand([plain, thinking, '--format', format, '--out', out], io)).toBe(0);
    expect(stdout()).toContain('token data: 6 ok, 6 mismatch, 0 incomplete, 0 without token ids');
    return err();
  }

  it('records every turn’s prompt and completion ids and logprobs, as the server sent them', () => {
    expect(records).toHaveLength(12);
    for (const record of records) {
      const exchanges = exchangesOf(record);
      expect(record.steps.map((step) => step.prompt_token_ids)).toEqual(
        exchanges.map((exchange) => exchange.promptIds),
      );
      expect(record.steps.map((step) => step.token_ids)).toEqual(exchanges.map((exchange) => exchange.completionIds));
      expect(record.steps.map((step) => step.logprobs)).toEqual(exchanges.map((exchange) => exchange.logprobs));
    }
  });

  it('grpo lays an episode’s turns end to end with a mask of what the model generated, and flags turns that do not line up', async () => {
    const out = rig.path('tokens-grpo.jsonl');
    const stderr = await exportTo('grpo', out);
    const rows = readFileSync(out, 'utf8')
      .trimEnd()
      .split('\n')
      .map((line) => JSON.parse(line) as GrpoRow);
    for (const row of rows) {
      const record = records.find((candidate) => candidate.rollout_id === row.rollout_id)!;
      const [first, second] = exchangesOf(record);
      if (record.task.index < 3) {
        // No reasoning: each prompt is the previous prompt and completion, then the tool result.
        expect(row).toMatchObject({ token_check: 'ok', token_issue: null, prompt_length: first!.promptIds.length });
        expect(row.token_ids).toEqual([...second!.promptIds, ...second!.completionIds]);
        const generated = new Set([
          ...first!.completionIds.map((_, i) => first!.promptIds.length + i),
          ...second!.completionIds.map((_, i) => second!.promptIds.length + i),
        ]);
        expect(row.token_mask).toEqual(row.token_ids!.map((_, i) => (generated.has(i) ? 1 : 0)));
        const logprobs = new Map([
          ...first!.logprobs.map((value, i) => [first!.promptIds.length + i, value] as const),
          ...second!.logprobs.map((value, i) => [second!.promptIds.length + i, value] as const),
        ]);
        expect(row.token_logprobs).toEqual(row.token_ids!.map((_, i) => logprobs.get(i) ?? 0));
      } else {
        // The template drops the first turn's reasoning, so the second prompt parts from it where the reasoning began.
        const position = first!.promptIds.length;
        expect(row).toMatchObject({ token_check: 'mismatch', token_ids: null, token_mask: null, token_logprobs: null });
        expect(row.token_issue).toBe(
          `turn 2's prompt ids do not extend turn 1's prompt and completion: they differ at position ${position} of ` +
            `${position + first!.completionIds.length} (expected id ${first!.completionIds[0]}, got ${second!.promptIds[position]})`,
        );
        expect(stderr).toContain(`(${row.rollout_id}): mismatch: turn 2's prompt ids do not extend`);
      }
    }
    const reading = await readWithPython('pandas', 'grpo', out);
    expect(reading.count).toBe(12);
    expect(reading.declared_match).toBe(true);
    expect(reading.columns.token_ids!.types).toEqual(['list']);
    expect(reading.columns.token_logprobs!.types).toEqual(['list']);
  });

  it('verifiers carries each turn’s ids, masks and logprobs in trajectory[].tokens, whether or not the turns line up', async () => {
    const out = rig.path('tokens-verifiers');
    await exportTo('verifiers', out);
    const rows = readFileSync(`${out}/results.jsonl`, 'utf8')
      .trimEnd()
      .split('\n')
      .map((line) => JSON.parse(line) as VerifiersRow);
    expect(rows).toHaveLength(12);
    for (const row of rows) {
      const rolloutId = (JSON.parse(row.info) as { rollout_id: string }).rollout_id;
      const record = records.find((candidate) => candidate.rollout_id === rolloutId)!;
      expect(row.token_check).toBe(record.task.index < 3 ? 'ok' : 'mismatch');
      expect(row.trajectory.map((step) => step.tokens)).toEqual(
        exchangesOf(record).map((exchange) => ({
          prompt_ids: exchange.promptIds,
          prompt_mask: exchange.promptIds.map(() => 0),
          completion_ids: exchange.completionIds,
          completion_mask: exchange.completionIds.map(() => 1),
          completion_logprobs: exchange.logprobs,
          overlong_prompt: false,
          is_truncated: false,
          routed_experts: null,
        })),
      );
    }
    // Every logprob is written as a float, the ones that are exactly 0 included.
    expect(readFileSync(`${out}/results.jsonl`, 'utf8')).toMatch(/"completion_logprobs":\[0\.0,-/);
    const reading = await readWithPython('stdlib', 'verifiers', out);
    expect(reading.metadata).toMatchObject({
      runbridge: { token_checks: { ok: 6, mismatch: 6, incomplete: 0, none: 0 } },
    });
  });
});
