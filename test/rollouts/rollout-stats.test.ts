import { describe, expect, it } from 'vitest';
import { passAtK, percentile, type RolloutOutcome, summarizeOutcomes } from '../../src/rollouts/rollout-stats.js';

/** C(n, k) by the textbook formula, to check the product form against. */
function choose(n: number, k: number): number {
  let result = 1;
  for (let i = 0; i < k; i++) result = (result * (n - i)) / (i + 1);
  return result;
}

describe('passAtK', () => {
  it('is the unbiased estimate 1 − C(n−c, k) / C(n, k)', () => {
    for (const [n, c, k] of [
      [8, 2, 1],
      [8, 2, 4],
      [10, 3, 5],
      [16, 1, 8],
      [5, 0, 3],
    ] as const) {
      expect(passAtK(n, c, k), `n=${n} c=${c} k=${k}`).toBeCloseTo(1 - choose(n - c, k) / choose(n, k), 12);
    }
    expect(passAtK(8, 2, 1)).toBeCloseTo(0.25, 12);
  });

  it('is 1 once every draw of k must include a pass, and 0 with no pass at all', () => {
    expect(passAtK(8, 5, 4)).toBe(1);
    expect(passAtK(8, 8, 8)).toBe(1);
    expect(passAtK(8, 0, 8)).toBe(0);
  });

  it('refuses counts that make no sense', () => {
    expect(() => passAtK(4, 5, 1)).toThrow(RangeError);
    expect(() => passAtK(4, 1, 5)).toThrow(RangeError);
    expect(() => passAtK(4, 1, 0)).toThrow(RangeError);
  });
});

describe('percentile', () => {
  it('takes the nearest rank, whatever the input order', () => {
    const values = [5, 1, 4, 2, 3, 10, 9, 8, 7, 6];
    expect(percentile(values, 50)).toBe(5);
    expect(percentile(values, 95)).toBe(10);
    expect(percentile(values, 0)).toBe(1);
    expect(percentile([], 50)).toBeNull();
  });
});

describe('summarizeOutcomes', () => {
  const outcome = (groupId: string, reward: number | null, extra: Partial<RolloutOutcome> = {}): RolloutOutcome => ({
    key: `${groupId}#${Math.random()}`,
    groupId,
    status: 'completed',
    reward,
    stopReason: reward === null ? 'no_tool_calls' : 'finished',
    inputTokens: 10,
    outputTokens: 2,
    totalTokens: 12,
    totalMs: 1000,
    ...extra,
  });

  it('counts failures in totals but keeps them out of the mean reward and pass@k', () => {
    const stats = summarizeOutcomes(
      [
        outcome('a', 1),
        outcome('a', 0),
        outcome('b', null),
        outcome('b', 1),
        outcome('b', 0, { status: 'failed', stopReason: 'error', totalMs: 3000 }),
      ],
      1,
    );
    expect(stats).toMatchObject({
      episodes: 5,
      completed: 4,
      failed: 1,
      mean_reward: 0.5,
      scored: 3,
      pass_at_k: { '1': 0.5, '2': 1 },
      stop_reasons: { finished: 3, no_tool_calls: 1, error: 1 },
      tokens: { input: 50, output: 10, total: 60 },
      episode_seconds: { p50: 1, p95: 3 },
    });
  });

  it('reports k up to the most samples a task has, averaging over the tasks that have that many', () => {
    const stats = summarizeOutcomes([outcome('a', 1), outcome('a', 0), outcome('a', 0), outcome('b', 1)], 1);
    expect(Object.keys(stats.pass_at_k)).toEqual(['1', '2', '3']);
    expect(stats.pass_at_k['1']).toBeCloseTo((1 / 3 + 1) / 2, 12);
    expect(stats.pass_at_k['3']).toBe(1);
  });

  it('lists each renderer the records name, with how many episodes each rendered, so a second template shows', () => {
    const qwen = {
      model: 'Qwen/Qwen3-8B',
      template_fingerprint: 'sha256:aa',
      chat_template_kwargs: { enable_thinking: true },
      reasoning_parser: 'qwen3',
      tool_parser: 'hermes',
    };
    const other = { ...qwen, template_fingerprint: 'sha256:bb' };
    const stats = summarizeOutcomes(
      [
        outcome('a', 1, { renderer: qwen }),
        outcome('a', 0, { renderer: { ...qwen, chat_template_kwargs: { enable_thinking: true } } }),
        outcome('b', 1, { renderer: other }),
        outcome('b', 1),
      ],
      1,
    );
    expect(stats.renderers).toEqual([
      { ...qwen, episodes: 2 },
      { ...other, episodes: 1 },
    ]);
    expect(summarizeOutcomes([outcome('a', 1)], 1).renderers).toEqual([]);
  });

  it('has nothing to average over no outcomes', () => {
    expect(summarizeOutcomes([], 1)).toMatchObject({
      episodes: 0,
      mean_reward: null,
      pass_at_k: {},
      episode_seconds: { p50: null, p95: null },
    });
  });
});
