import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { LOCAL_OWNER } from '../../../../src/http/authenticate.js';
import { STREAM_FORMATS } from '../../../../src/http/formats/stream-formats.js';
import type { RunEvent } from '../../../../src/protocol/run-events.js';
import { assertEventOrder } from '../../../../src/protocol/verify-event-order.js';
import { episodeTokens } from '../../../../src/rollouts/export/episode-tokens.js';
import { type GrpoRow, toGrpoRows } from '../../../../src/rollouts/export/grpo-rows.js';
import { rewardStats } from '../../../../src/rollouts/export/reward-stats.js';
import { toVerifiersRow } from '../../../../src/rollouts/export/verifiers-rows.js';
import type { RolloutSnapshot } from '../../../../src/rollouts/rollout-snapshot.js';
import { toTrajectoryRecord } from '../../../../src/rollouts/to-trajectory-record.js';
import { type TrajectoryRecord, TrajectoryRecordSchema } from '../../../../src/rollouts/trajectory-schema.js';
import { foldEpisode } from '../../../../src/runs/episode-fold.js';
import { decide, eventsMatching, ofType, sendMessage } from '../../../hitl/hitl-support.js';
import { decode } from '../../../support/fake-vllm/fake-tokenizer.js';
import {
  type FakeGeneration,
  type FakePolicy,
  type FakeVllmServer,
  startFakeVllmServer,
} from '../../../support/fake-vllm/fake-vllm-server.js';
import { ndjsonLines, readRecords, startRollout } from '../../../support/rollout-client.js';
import { startTestBridge, type TestBridge } from '../../../support/start-test-bridge.js';
import { unusedPort } from '../../../support/unused-port.js';

/**
 * Whole runs with `vllm:` models through the HTTP API, against a fake vLLM server whose tokenizer is
 * not reversible and whose template drops earlier reasoning: what a client that renders the
 * conversation again as text cannot get right, and the token-in provider must.
 */

const MODEL = 'vllm:Qwen/Qwen3-8B';
const TASK = { spec: { question: 'What is 17 + 25?', answer: 42 } };

const call = (name: string, args: unknown) =>
  `<tool_call>\n{"name": "${name}", "arguments": ${JSON.stringify(args).replaceAll(':', ': ').replaceAll(',', ', ')}}\n</tool_call>`;

/** Thinks every turn, computes twice, then submits 42: a three-turn episode. */
const ARITH: FakePolicy = ({ turn }) => {
  switch (turn) {
    case 1:
      return {
        text: `<think>\nI add first.\n</think>\n\nLet me compute.\n${call('calculator', { expression: '17 + 25' })}`,
      };
    case 2:
      return { text: `<think>\nCheck it once more.\n</think>\n\n${call('calculator', { expression: '42 * 1' })}` };
    case 3:
      return { text: `<think>\nIt is 42.\n</think>\n\n${call('submit', { answer: 42 })}` };
    default:
      return { text: 'Done.' };
  }
};

let fake: FakeVllmServer;
let policy: FakePolicy = ARITH;
let bridge: TestBridge;

beforeAll(async () => {
  fake = await startFakeVllmServer({ policy: (prompt) => policy(prompt) });
  bridge = await startTestBridge({ VLLM_BASE_URL: fake.url, OPENAI_BASE_URL: `${fake.url}/v1` });
});
afterAll(async () => {
  await bridge.shutdown();
  await fake.close();
});

/** Runs `body` to its end with `with` as the fake's policy; returns the events, the record and the run's generations. */
async function play(body: Record<string, unknown>, withPolicy: FakePolicy = ARITH) {
  policy = withPolicy;
  const before = fake.generations.length;
  const runId = await bridge.startRun({ env: 'arith', task: TASK, model: MODEL, ...body });
  const events = await bridge.readEvents(runId);
  return { runId, events, record: await recordOf(runId), generations: fake.generations.slice(before) };
}

function cancel(runId: string): Promise<Response> {
  return bridge.fetch(`/v1/runs/${runId}/cancel`, { method: 'POST', headers: { 'Content-Type': 'application/json' } });
}

async function recordOf(runId: string): Promise<TrajectoryRecord> {
  const run = await bridge.registry.open(runId, LOCAL_OWNER);
  const record = toTrajectoryRecord(foldEpisode(run.log.entries), {
    rolloutId: `ro_${runId}`,
    rollout: { key: 'arith/train/0#0', groupId: 'arith/train/0', index: 0, sample: 0, seed: 1 },
    attempt: 1,
    split: 'train',
    spec: TASK.spec,
    sampling: {},
    rewardReduction: 'last',
    timeoutMs: 60_000,
  });
  return TrajectoryRecordSchema.parse(record);
}

/** Each step's token data is exactly what the server took and sampled in that generation. */
function expectServerIds(record: TrajectoryRecord, generations: readonly FakeGeneration[]): void {
  expect(record.steps).toHaveLength(generations.length);
  record.steps.forEach((step, index) => {
    const generation = generations[index]!;
    expect(step.prompt_token_ids).toEqual(generation.promptIds);
    expect(step.token_ids).toEqual(generation.completionIds);
    expect(step.logprobs).toEqual(generation.logprobs);
  });
}

describe('a run with a vllm: model', () => {
  it('plays a three-turn episode in which every prompt is the exact continuation of the last, and keeps the server’s ids and logprobs', async () => {
    const { events, record, generations } = await play({});
    assertEventOrder(events);
    expect(events.at(-1)).toMatchObject({ event: 'run.completed', stop_reason: 'finished', reward: 1, turns: 3 });
    expect(generations.every((generation) => generation.endpoint === 'completions')).toBe(true);
    for (let index = 1; index < generations.length; index++) {
      const previous = generations[index - 1]!;
      const carried = [...previous.promptIds, ...previous.completionIds];
      expect(generations[index]!.promptIds.slice(0, carried.length)).toEqual(carried);
    }
    expectServerIds(record, generations);
    expect(record.model).toBe(MODEL);
    expect(record.renderer).toMatchObject({ model: 'Qwen/Qwen3-8B', reasoning_parser: 'qwen3', tool_parser: 'hermes' });
    expect(record.steps.some((step) => step.new_sequence)).toBe(false);

    // What the model wrote was read in the bridge and published live, without the end-of-turn token.
    const texts = events.filter((event) => event.event === 'message.delta');
    expect(texts.map((event) => event.delta).join('')).toBe('Let me compute.');
    expect(events.filter((event) => event.event === 'reasoning.delta').length).toBeGreaterThan(3);
    expect(events.filter((event) => event.event === 'tool.arguments.delta').length).toBeGreaterThan(3);
    expect(record.messages.at(1)).toMatchObject({
      role: 'assistant',
      content: 'Let me compute.',
      reasoning_content: 'I add first.',
      tool_calls: [{ function: { name: 'calculator', arguments: '{"expression": "17 + 25"}' } }],
    });
  });

  it('exports as one grpo sequence masking exactly the sampled tokens, and as verifiers turns, with the server’s ids and logprobs', async () => {
    const { record, generations } = await play({});
    const tokens = episodeTokens(record);
    expect(tokens).toMatchObject({ check: 'ok', issue: null });
    const group = { size: 1, stats: rewardStats([1]) };
    const [row, ...more] = toGrpoRows(record, group, tokens, false);
    expect(more).toEqual([]);
    const last = generations.at(-1)!;
    expect(row!.token_ids).toEqual([...last.promptIds, ...last.completionIds]);
    const sampled = new Set<number>();
    for (const generation of generations) {
      for (let offset = 0; offset < generation.completionIds.length; offset++)
        sampled.add(generation.promptIds.length + offset);
    }
    expect(row!.token_mask).toEqual(row!.token_ids!.map((_, position) => (sampled.has(position) ? 1 : 0)));
    expect(row!.token_logprobs!.filter((_, position) => sampled.has(position))).toEqual(
      generations.flatMap((generation) => generation.logprobs),
    );
    expect(row!.prompt_length).toBe(generations[0]!.promptIds.length);

    const verifiers = toVerifiersRow(record, 0, tokens, false);
    expect(verifiers.trajectory.map((step) => step.tokens)).toEqual(
      generations.map((generation) =>
        expect.objectContaining({
          prompt_ids: generation.promptIds,
          completion_ids: generation.completionIds,
          completion_logprobs: generation.logprobs,
          completion_mask: generation.completionIds.map(() => 1),
        }),
      ),
    );
  });

  it('where the chat-message path against the same server fails the token check', async () => {
    const { events, record, generations } = await play({
      model: 'openai:Qwen/Qwen3-8B',
      sampling: { extra_body: { return_token_ids: true, logprobs: true } },
    });
    expect(events.at(-1)).toMatchObject({ event: 'run.completed', stop_reason: 'finished' });
    expect(generations.every((generation) => generation.endpoint === 'chat')).toBe(true);
    const tokens = episodeTokens(record);
    expect(tokens.check).toBe('mismatch');
    expect(tokens.issue).toMatch(/turn 2's prompt ids do not extend turn 1's prompt and completion/);
  });

  it('makes the turn after an edited approval a fresh render, marked, and exports the record as two sequences', async () => {
    policy = ARITH;
    const before = fake.generations.length;
    const runId = await bridge.startRun({
      env: 'arith',
      task: TASK,
      model: MODEL,
      approval: { tools: ['calculator'], timeout_seconds: 30 },
    });
    const [first] = await eventsMatching(bridge, runId, ofType('tool.approval_required'));
    await decide(bridge, runId, first!.approval_id, { decision: 'approve', arguments: { expression: '17 + 26' } });
    const [, second] = await eventsMatching(bridge, runId, ofType('tool.approval_required'), 2);
    await decide(bridge, runId, second!.approval_id, { decision: 'approve' });
    const events = await bridge.readEvents(runId);
    expect(events.at(-1)).toMatchObject({ event: 'run.completed', stop_reason: 'finished' });
    const record = await recordOf(runId);
    const generations = fake.generations.slice(before);
    expectServerIds(record, generations);

    expect(record.steps.map((step) => step.new_sequence?.reason ?? null)).toEqual([null, 'approval_edit', null]);
    expect(decode(generations[1]!.promptIds)).toContain(
      '{"name": "calculator", "arguments": {"expression": "17 + 26"}}',
    );
    const tokens = episodeTokens(record);
    expect(tokens.check).toBe('ok');
    const rows = toGrpoRows(record, { size: 1, stats: rewardStats([1]) }, tokens, false);
    expect(rows.map((row) => [row.sequence_turns, row.sequence_reason])).toEqual([
      [[1, 1], null],
      [[2, 3], 'approval_edit'],
    ]);
  });

  it('answers a malformed call with a tool error and goes on, still carrying the ids', async () => {
    const { events, record, generations } = await play({}, ({ turn }) => {
      if (turn === 1)
        return { text: '<tool_call>\n{"name": "calculator", "arguments": {"expression": 17 +}\n</tool_call>' };
      return ARITH({ ids: [], text: '', turn: 3, seed: 0 });
    });
    expect(events.at(-1)).toMatchObject({ event: 'run.completed', stop_reason: 'finished', reward: 1 });
    expect(events.find((event) => event.event === 'tool.completed')).toMatchObject({
      tool: 'calculator',
      error: true,
      error_message: expect.stringContaining('not a JSON object'),
    });
    expectServerIds(record, generations);
    expect(episodeTokens(record).check).toBe('ok');
    expect(record.steps.some((step) => step.new_sequence)).toBe(false);
  });

  it('starts a new sequence after a turn cut by max_tokens, and the record says where', async () => {
    // Turn 1 runs past the limit; the submission after it fits.
    const submit = { text: '<tool_call>{"name": "submit", "arguments": {"answer": 42}}</tool_call>' };
    const { record, generations } = await play({ sampling: { max_tokens: 40 } }, ({ turn }) =>
      turn === 1 ? ARITH({ ids: [], text: '', turn: 1, seed: 0 }) : submit,
    );
    expect(generations[0]!.finishReason).toBe('length');
    expect(record.steps[0]!.finish_reason).toBe('length');
    expect(record.steps[1]!.new_sequence).toEqual({ reason: 'truncated' });
    expectServerIds(record, generations);
    const tokens = episodeTokens(record);
    expect(tokens.check).toBe('ok');
    expect(tokens.sequences.map((sequence) => sequence.turns)).toEqual([
      [1, 1],
      [2, record.steps.length],
    ]);
  });

  it('carries a person’s message in chat mode into the same sequence', async () => {
    policy = ({ turn }) => ({ text: `Answer number ${turn}.` });
    const before = fake.generations.length;
    const runId = await bridge.startRun({ env: 'arith', task: TASK, model: MODEL, await_input: true });
    await eventsMatching(bridge, runId, ofType('run.awaiting_input'));
    expect((await sendMessage(bridge, runId, 'And once more?')).status).toBe(202);
    await eventsMatching(bridge, runId, ofType('run.awaiting_input'), 2);
    expect((await cancel(runId)).status).toBe(202);
    await bridge.readEvents(runId);
    const record = await recordOf(runId);
    expectServerIds(record, fake.generations.slice(before));
    expect(episodeTokens(record).check).toBe('ok');
    expect(record.steps[1]!.new_sequence).toBeUndefined();
  });
});

describe('a vllm: run that cannot go on', () => {
  it('is cancelled cleanly mid-generation, and the server’s stream is closed', async () => {
    policy = () => ({ text: 'Thinking out loud for a very long time.', hangAfterTokens: 6 });
    const runId = await bridge.startRun({ env: 'arith', task: TASK, model: MODEL });
    await eventsMatching(bridge, runId, ofType('message.delta'));
    expect((await cancel(runId)).status).toBe(202);
    const events = await bridge.readEvents(runId);
    assertEventOrder(events);
    expect(events.at(-1)).toMatchObject({ event: 'run.cancelled', reason: 'client' });
    await fake.hungStreamClosed();
  });

  it('ends with model_context_exceeded when the next prompt would pass the context, keeping the turns before', async () => {
    // Room for turns 1 and 2, and one token too few for turn 3's prompt.
    const { generations: whole } = await play({});
    fake.setMaxModelLen(whole[2]!.promptIds.length);
    try {
      const { events, record, generations } = await play({});
      expect(events.at(-1)).toMatchObject({ event: 'run.failed', code: 'model_context_exceeded' });
      expect((events.at(-1) as Extract<RunEvent, { event: 'run.failed' }>).error).toMatch(/max_model_len/);
      expect(record).toMatchObject({ status: 'failed', stop_reason: 'context_exceeded' });
      expect(generations).toHaveLength(2);
      expectServerIds(record, generations);
    } finally {
      fake.setMaxModelLen(4096);
    }
  });

  it('fails model_error when the server streams more token ids than max_tokens, having read a bounded amount', async () => {
    const { events, generations } = await play({ sampling: { max_tokens: 256 } }, () => ({
      text: '',
      floodTokenIds: 10_000_000,
    }));
    assertEventOrder(events);
    expect(events.at(-1)).toMatchObject({ event: 'run.failed', code: 'model_error' });
    expect((events.at(-1) as Extract<RunEvent, { event: 'run.failed' }>).error).toMatch(/max_tokens is 256/);
    // 10 million ids are some 65 MB; the bridge read 256 and what the sockets held.
    await vi.waitFor(() => expect(generations[0]!.flood).toMatchObject({ closedEarly: true }));
    expect(generations[0]!.flood!.written).toBeLessThan(16 * 1024 * 1024);
  });

  it('fails model_output_too_large as token ids without text pass the turn’s cap, though the stream never ends', async () => {
    const tight = await startTestBridge({ VLLM_BASE_URL: fake.url, RUNBRIDGE_MAX_TURN_OUTPUT_CHARS: '4000' });
    try {
      policy = () => ({ text: '', floodTokenIds: 2048 });
      const runId = await tight.startRun({ env: 'arith', task: TASK, model: MODEL, sampling: { max_tokens: 3000 } });
      const events = await tight.readEvents(runId);
      assertEventOrder(events);
      expect(events.at(-1)).toMatchObject({ event: 'run.failed', code: 'model_output_too_large' });
      const generation = fake.generations.at(-1)!;
      await vi.waitFor(() => expect(generation.flood).toMatchObject({ closedEarly: true }));
    } finally {
      await tight.shutdown();
    }
  });

  it('fails with model_unavailable when the server is down', async () => {
    const down = await startTestBridge({ VLLM_BASE_URL: `http://127.0.0.1:${await unusedPort()}` });
    try {
      const runId = await down.startRun({ env: 'arith', task: TASK, model: MODEL });
      const events = await down.readEvents(runId);
      expect(events.at(-1)).toMatchObject({ event: 'run.failed', code: 'model_unavailable' });
    } finally {
      await down.shutdown();
    }
  });
});

describe('a rollout batch with a vllm: model (POST /v1/rollouts)', () => {
  it('streams records and grpo rows holding exactly the server’s ids, and names the renderer and policy', async () => {
    policy = ({ turn, seed }) =>
      turn === 1
        ? { text: `<think>\nFirst.\n</think>\n\n${call('calculator', { expression: '6 * 7' })}` }
        : { text: call('submit', { answer: 40 + (seed % 3) }) };
    const id = await startRollout(bridge.fetch, {
      env: 'arith',
      tasks: '0:3',
      samples: 2,
      model: MODEL,
      policy_version: 'step-3',
      sampling: { extra_body: { chat_template_kwargs: { enable_thinking: true } } },
    });
    const records = await readRecords(bridge.fetch, id);
    expect(records).toHaveLength(6);
    for (const record of records) {
      expect(record).toMatchObject({
        policy_version: 'step-3',
        renderer: { chat_template_kwargs: { enable_thinking: true } },
      });
      expectServerIds(
        record,
        fake.generations.filter((generation) => generation.body.seed === record.sampling.seed),
      );
    }
    const grpo = ndjsonLines(await (await bridge.fetch(`/v1/rollouts/${id}/records?format=grpo`)).text()) as GrpoRow[];
    expect(grpo).toHaveLength(6);
    expect(
      grpo.every((row) => row.token_check === 'ok' && row.sequences === 1 && row.policy_version === 'step-3'),
    ).toBe(true);
    const snapshot = (await (await bridge.fetch(`/v1/rollouts/${id}`)).json()) as RolloutSnapshot;
    expect(snapshot.results.renderers).toEqual([{ ...records[0]!.renderer, episodes: 6 }]);
  });
});

describe('the models list', () => {
  it('offers the vllm provider, whose bare name means the model the server serves', async () => {
    const answer = (await (await bridge.fetch('/v1/models')).json()) as { data: Array<{ id: string }> };
    expect(answer.data.map((model) => model.id)).toContain('vllm');
  });
});

describe('every stream format', () => {
  it('serves a vllm: run', async () => {
    policy = ARITH;
    const runId = await bridge.startRun({ env: 'arith', task: TASK, model: MODEL });
    await bridge.readEvents(runId);
    for (const format of Object.keys(STREAM_FORMATS)) {
      const response = await bridge.fetch(`/v1/runs/${runId}/events?format=${format}`);
      expect(response.status, format).toBe(200);
      expect(await response.text(), format).toMatch(/calculator/);
    }
  });
});
