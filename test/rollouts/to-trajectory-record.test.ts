import { describe, expect, it } from 'vitest';
import { type TrajectoryContext, toTrajectoryRecord } from '../../src/rollouts/to-trajectory-record.js';
import { TrajectoryRecordSchema } from '../../src/rollouts/trajectory-schema.js';
import type { EpisodeRecord } from '../../src/runs/episode-record.js';

function episode(overrides: Partial<EpisodeRecord> = {}): EpisodeRecord {
  const call = (id: string, reward: number | null, extra = {}) => ({
    id,
    name: 'score',
    arguments: '{}',
    content: [{ type: 'text' as const, text: 'ok' }],
    metadata: null,
    reward,
    finished: false,
    error: false,
    durationMs: 5,
    ...extra,
  });
  return {
    env: 'probe',
    task: { split: 'train', index: 2 },
    model: 'scripted:test',
    sampling: { temperature: 0.7, seed: 99 },
    messages: [{ role: 'user', content: [{ type: 'text', text: 'Go.' }] }],
    userMessages: [],
    tools: [{ name: 'score', description: 'Score.', inputSchema: { type: 'object', properties: {} } }],
    steps: [
      {
        turn: 1,
        finishReason: 'tool_calls',
        rawFinishReason: 'tool_use',
        usage: { input_tokens: 10, output_tokens: 4, total_tokens: 14 },
        text: '',
        reasoning: '',
        toolCalls: [call('a', 0.25), call('b', 0.5, { error: true, errorMessage: 'boom', reward: null })],
        tokenData: { promptTokenIds: [1, 2], tokenIds: [3], logprobs: [-0.5], raw: [{ token: 'x', logprob: -0.5 }] },
        modelMs: 30,
      },
      {
        turn: 2,
        finishReason: 'tool_calls',
        usage: { input_tokens: 20, output_tokens: 6, total_tokens: 26 },
        text: 'Done.',
        reasoning: '',
        toolCalls: [call('c', 1, { finished: true, metadata: { correct: true } })],
        modelMs: 20,
      },
    ],
    usage: { input_tokens: 30, output_tokens: 10, total_tokens: 40 },
    rewards: [],
    reward: 1,
    finished: true,
    turns: 2,
    output: 'Done.',
    end: { status: 'completed', stopReason: 'finished' },
    timing: { startedAt: 1_000_000, endedAt: 1_000_200, modelMs: 50, envMs: 120 },
    ...overrides,
  };
}

const context: TrajectoryContext = {
  rolloutId: 'ro_test',
  rollout: { key: 'probe/train/2#1', groupId: 'probe/train/2', index: 2, sample: 1, seed: 99 },
  attempt: 1,
  split: 'train',
  spec: { label: 'three' },
  sampling: { temperature: 0.7 },
  rewardReduction: 'sum',
  timeoutMs: 30_000,
};

describe('toTrajectoryRecord', () => {
  it('writes a valid record with per-step rewards, token data, metrics and the bridge overhead', () => {
    const record = toTrajectoryRecord(episode(), context);
    expect(TrajectoryRecordSchema.parse(record)).toEqual(record);
    expect(record).toMatchObject({
      schema_version: 1,
      rollout_id: 'ro_test',
      group_id: 'probe/train/2',
      sample_index: 1,
      task: { env: 'probe', split: 'train', index: 2, spec: { label: 'three' } },
      sampling: { temperature: 0.7, seed: 99 },
      status: 'completed',
      stop_reason: 'finished',
      error: null,
      reward_reduction: 'sum',
      timing: { started_at: 1000, ended_at: 1000.2, total_ms: 200, model_ms: 50, env_ms: 120, overhead_ms: 30 },
      metrics: { turns: 2, tool_calls: 3, failed_tool_calls: 1, input_tokens: 30, output_tokens: 10, total_tokens: 40 },
    });
    const [first, second] = record.steps;
    expect(first).toMatchObject({
      raw_finish_reason: 'tool_use',
      reward: 0.25,
      prompt_token_ids: [1, 2],
      token_ids: [3],
      logprobs: [-0.5],
      logprobs_raw: [{ token: 'x', logprob: -0.5 }],
    });
    expect(first!.tool_calls[1]).toEqual({
      tool_call_id: 'b',
      name: 'score',
      reward: null,
      finished: false,
      error: true,
      error_message: 'boom',
      metadata: null,
      duration_ms: 5,
    });
    expect(second).toMatchObject({
      raw_finish_reason: null,
      reward: 1,
      token_ids: null,
      logprobs: null,
      logprobs_raw: null,
    });
    expect(second!.tool_calls[0]!.metadata).toEqual({ correct: true });
  });

  it('records a failed episode with stop reason "error" and its code and message', () => {
    const record = toTrajectoryRecord(
      episode({ end: { status: 'failed', code: 'model_unavailable', message: 'The model is down.' } }),
      context,
    );
    expect(record).toMatchObject({
      status: 'failed',
      stop_reason: 'error',
      error: { code: 'model_unavailable', message: 'The model is down.' },
    });
  });

  it('records an episode cut by its time limit with stop reason "timeout" and the limit in the message', () => {
    const record = toTrajectoryRecord(episode({ end: { status: 'cancelled', reason: 'timeout' } }), context);
    expect(record).toMatchObject({ status: 'failed', stop_reason: 'timeout', error: { code: 'rollout_timeout' } });
    expect(record.error!.message).toContain('30 s');
  });

  it('records an episode whose next prompt would not fit the context with stop reason "context_exceeded"', () => {
    const end = { status: 'failed', code: 'model_context_exceeded', message: 'The prompt has 5000 tokens.' } as const;
    const record = toTrajectoryRecord(episode({ end }), context);
    expect(record).toMatchObject({
      status: 'failed',
      stop_reason: 'context_exceeded',
      error: { code: 'model_context_exceeded', message: 'The prompt has 5000 tokens.' },
    });
  });

  it('keeps where a turn began a new token sequence, and what rendered the ids, and leaves both out of other records', () => {
    const renderer = {
      model: 'Qwen/Qwen3-8B',
      templateFingerprint: 'sha256:ab',
      chatTemplateKwargs: { enable_thinking: true },
      reasoningParser: 'qwen3',
      toolParser: 'hermes',
    };
    const plain = episode();
    const [first, second] = plain.steps;
    const record = toTrajectoryRecord(
      episode({
        steps: [
          { ...first!, tokenData: { ...first!.tokenData, renderer } },
          {
            ...second!,
            tokenData: { promptTokenIds: [9], tokenIds: [8], renderer, newSequence: { reason: 'truncated' } },
          },
        ],
      }),
      context,
    );
    expect(TrajectoryRecordSchema.parse(record)).toEqual(record);
    expect(record.renderer).toEqual({
      model: 'Qwen/Qwen3-8B',
      template_fingerprint: 'sha256:ab',
      chat_template_kwargs: { enable_thinking: true },
      reasoning_parser: 'qwen3',
      tool_parser: 'hermes',
    });
    expect(record.steps[0]).not.toHaveProperty('new_sequence');
    expect(record.steps[1]!.new_sequence).toEqual({ reason: 'truncated' });
    const other = toTrajectoryRecord(plain, context);
    expect(other).not.toHaveProperty('renderer');
    expect(other.steps.some((step) => 'new_sequence' in step)).toBe(false);
  });
});
