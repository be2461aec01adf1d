import { existsSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { BadRequestError, ConflictError, NotFoundError } from '../../src/errors.js';
import type { ModelRequest } from '../../src/models/model.js';
import { generateRollouts, type RolloutProgress } from '../../src/rollouts/generate-rollouts.js';
import { RolloutLock } from '../../src/rollouts/rollout-lock.js';
import { manifestPathFor } from '../../src/rollouts/rollout-manifest.js';
import { planRollouts, rolloutKey } from '../../src/rollouts/rollout-plan.js';
import { SAMPLES_TEMPERATURE } from '../../src/rollouts/rollout-settings.js';
import type { TrajectoryRecord } from '../../src/rollouts/trajectory-schema.js';
import { keysOf, misbehavingModel, offlineModel, readManifestFile, readRecords, useRolloutRig } from './rollout-rig.js';

/** A record without what differs between two runs of the same rollout: its id and its timings. */
function withoutIdsAndTimings(record: TrajectoryRecord): unknown {
  const { rollout_id: _id, timing: _timing, ...rest } = record;
  return {
    ...rest,
    steps: record.steps.map(({ model_ms: _model, ...step }) => ({
      ...step,
      tool_calls: step.tool_calls.map(({ duration_ms: _duration, ...call }) => call),
    })),
  };
}

function byKey(records: readonly TrajectoryRecord[]): Map<string, unknown> {
  return new Map(
    records.map((record) => [rolloutKey(record.group_id, record.sample_index), withoutIdsAndTimings(record)]),
  );
}

describe('generateRollouts', () => {
  const rig = useRolloutRig();

  it('plays 2 samples of 20 arith tasks with the offline model: 40 valid records with the expected rewards', async () => {
    const out = rig.path('offline.jsonl');
    const result = await generateRollouts({
      ors: rig.ors,
      model: offlineModel(),
      env: 'arith',
      split: 'train',
      tasks: '0:20',
      samples: 2,
      // Greedy: the offline model makes no slips, so every reward is known beforehand.
      sampling: { temperature: 0 },
      concurrency: 8,
      out,
    });

    expect(result.status).toBe('finished');
    const records = readRecords(out);
    expect(records).toHaveLength(40);
    expect(new Set(keysOf(records))).toEqual(
      new Set(
        planRollouts({ env: 'arith', split: 'train', indices: [...Array(20).keys()], samples: 2, masterSeed: 0 }).map(
          (rollout) => rollout.key,
        ),
      ),
    );
    for (const record of records) {
      const index = record.task.index;
      // The offline model cannot read the `ages` problems, dealt to exactly the indices ending in 9.
      if (index % 10 === 9) {
        expect(record, `task ${index}`).toMatchObject({
          status: 'completed',
          reward: null,
          finished: false,
          stop_reason: 'no_tool_calls',
        });
      } else {
        expect(record, `task ${index}`).toMatchObject({
          status: 'completed',
          reward: 1,
          finished: true,
          stop_reason: 'finished',
        });
        expect(record.rewards.at(-1)).toMatchObject({ tool: 'submit', reward: 1 });
      }
      const spec = record.task.spec as { question: string };
      expect(record.messages[0]).toMatchObject({ role: 'user' });
      expect(String(record.messages[0]!.content)).toContain(spec.question);
      expect(record.tools.map((tool) => tool.function.name)).toEqual(['calculator', 'submit']);
      expect(record.metrics.turns).toBe(record.steps.length);
      expect(record.metrics.total_tokens).toBe(record.steps.reduce((sum, step) => sum + step.usage.total_tokens, 0));
    }

    const manifest = readManifestFile(manifestPathFor(out));
    expect(manifest).toEqual(result.manifest);
    expect(manifest).toMatchObject({
      status: 'finished',
      config: { env: 'arith', split: 'train', tasks: '0:20', task_count: 20, samples: 2, model: 'offline', seed: 0 },
      progress: { planned: 40, completed: 40, failed: 0, remaining: 0, skipped: 0, written: 40, cancelled: 0 },
      results: {
        episodes: 40,
        completed: 40,
        failed: 0,
        mean_reward: 0.9,
        scored: 36,
        pass_at_k: { '1': 0.9, '2': 0.9 },
        stop_reasons: { finished: 36, no_tool_calls: 4 },
      },
    });
    expect(manifest.results.tokens.total).toBe(records.reduce((sum, record) => sum + record.metrics.total_tokens, 0));
    expect(manifest.results.episode_seconds.p95).toBeGreaterThanOrEqual(manifest.results.episode_seconds.p50!);
    expect(rig.server.activeSessionIds()).toEqual([]);
  });

  it('samples several episodes of a task at temperature 1 when none is named, so they differ; one sample keeps the provider default', async () => {
    const base = { ors: rig.ors, model: offlineModel(), env: 'arith', split: 'train', tasks: '0:8' };
    const several = await generateRollouts({ ...base, samples: 4, out: rig.path('unnamed-temperature.jsonl') });
    expect(several.manifest.config.sampling).toEqual({ temperature: SAMPLES_TEMPERATURE });
    const records = readRecords(rig.path('unnamed-temperature.jsonl'));
    for (const record of records) expect(record.sampling.temperature).toBe(1);
    const rewardsOf = (index: number) =>
      new Set(records.filter((record) => record.task.index === index).map((record) => record.reward));
    // Some task's samples scored differently: a GRPO group with variance.
    expect([...Array(8).keys()].some((index) => rewardsOf(index).size > 1)).toBe(true);

    const single = await generateRollouts({ ...base, samples: 1, out: rig.path('one-sample.jsonl') });
    expect(single.manifest.config.sampling).toEqual({});
  });

  it('writes identical records apart from ids and timings for the same master seed, at concurrency 1 and 16', async () => {
    const options = {
      ors: rig.ors,
      model: offlineModel(),
      env: 'arith',
      split: 'train',
      tasks: '0:10',
      samples: 4,
      seed: 7,
      sampling: { temperature: 1 },
    };
    await generateRollouts({ ...options, concurrency: 1, out: rig.path('seed7-c1.jsonl') });
    await generateRollouts({ ...options, concurrency: 16, out: rig.path('seed7-c16.jsonl') });
    await generateRollouts({ ...options, seed: 8, concurrency: 16, out: rig.path('seed8.jsonl') });
    const one = readRecords(rig.path('seed7-c1.jsonl'));
    const sixteen = readRecords(rig.path('seed7-c16.jsonl'));

    expect(one).toHaveLength(40);
    expect(byKey(sixteen)).toEqual(byKey(one));
    // The seeds matter: at temperature 1 the offline model slips on some samples, and another master seed slips elsewhere.
    expect(one.some((record) => record.reward === 0)).toBe(true);
    expect(byKey(readRecords(rig.path('seed8.jsonl')))).not.toEqual(byKey(one));
    for (const record of one) expect(record.sampling).toEqual({ temperature: 1, seed: planSeed(7, record) });
  });

  it('records the episodes of a failing model as errors after their retries, and completes the rest', async () => {
    const plan = planRollouts({
      env: 'arith',
      split: 'train',
      indices: [...Array(8).keys()],
      samples: 2,
      masterSeed: 0,
    });
    const doomed = new Set(
      plan.filter((rollout) => rollout.index % 3 === 0 && rollout.sample === 0).map((rollout) => rollout.seed),
    );
    const model = misbehavingModel(offlineModel(), (request) => (doomed.has(request.sampling.seed!) ? 'fail' : 'play'));
    const out = rig.path('failing.jsonl');
    const updates: RolloutProgress[] = [];
    const result = await generateRollouts({
      ors: rig.ors,
      model,
      env: 'arith',
      tasks: '0:8',
      samples: 2,
      retries: 1,
      concurrency: 4,
      out,
      onProgress: (progress) => updates.push(progress),
    });

    const records = readRecords(out);
    expect(records).toHaveLength(16);
    const failed = records.filter((record) => record.status === 'failed');
    expect(failed.map((record) => record.sampling.seed).sort()).toEqual([...doomed].sort());
    for (const record of failed) {
      expect(record).toMatchObject({
        stop_reason: 'error',
        attempt: 2,
        reward: null,
        error: { code: 'model_unavailable' },
      });
      expect(record.error!.message).toContain('503');
    }
    expect(records.filter((record) => record.status === 'completed')).toHaveLength(16 - doomed.size);
    expect(result.manifest.progress).toMatchObject({
      completed: 16 - doomed.size,
      failed: doomed.size,
      retried: doomed.size,
      remaining: 0,
    });
    expect(result.manifest.results.stop_reasons.error).toBe(doomed.size);
    expect(updates.at(-1)).toMatchObject({
      planned: 16,
      completed: 16 - doomed.size,
      failed: doomed.size,
      running: 0,
      retried: doomed.size,
    });
    expect(rig.server.activeSessionIds()).toEqual([]);
  });

  it('runs a failed attempt again within the batch and records the attempt that completed', async () => {
    const failedOnce = new Set<number>();
    const model = misbehavingModel(offlineModel(), (request) => {
      const seed = request.sampling.seed!;
      if (failedOnce.has(seed)) return 'play';
      failedOnce.add(seed);
      return 'fail';
    });
    const out = rig.path('flaky.jsonl');
    const result = await generateRollouts({
      ors: rig.ors,
      model,
      env: 'arith',
      tasks: '0:4',
      samples: 1,
      retries: 1,
      out,
    });
    const records = readRecords(out);
    expect(records.map((record) => [record.status, record.attempt])).toEqual(Array(4).fill(['completed', 2]));
    expect(result.manifest.progress).toMatchObject({ completed: 4, retried: 4 });
  });

  it('never has more episodes in flight than the concurrency bound, and reaches it', async () => {
    let peak = 0;
    let open!: () => void;
    const full = new Promise<void>((resolve) => {
      open = resolve;
    });
    // Every first model call waits until three episodes run at once; a bound below three would hang here.
    const inner = offlineModel();
    const model = {
      id: inner.id,
      async *stream(request: ModelRequest) {
        await full;
        yield* inner.stream(request);
      },
    };
    await generateRollouts({
      ors: rig.ors,
      model,
      env: 'arith',
      tasks: '0:12',
      concurrency: 3,
      out: rig.path('bound.jsonl'),
      onProgress: ({ running }) => {
        peak = Math.max(peak, running);
        if (running === 3) open();
      },
    });
    expect(peak).toBe(3);
    expect(readRecords(rig.path('bound.jsonl'))).toHaveLength(12);
  });

  it('stops when the batch itself fails (a callback throws): episodes in flight cancelled, sessions deleted, lock released, whole lines only', async () => {
    const out = rig.path('fault.jsonl');
    const [first] = planRollouts({ env: 'arith', split: 'train', indices: [0], samples: 1, masterSeed: 0 });
    // Every episode but the first hangs, so some are still in flight when the fault comes.
    const model = misbehavingModel(offlineModel(), (request) =>
      request.sampling.seed === first!.seed ? 'play' : 'hang',
    );
    const batch = generateRollouts({
      ors: rig.ors,
      model,
      env: 'arith',
      tasks: '0:4',
      concurrency: 4,
      out,
      onRecord: () => {
        throw new Error('the callback broke');
      },
    });

    await expect(batch).rejects.toThrow('the callback broke');
    expect(rig.server.activeSessionIds()).toEqual([]);
    expect(existsSync(`${out}.lock`)).toBe(false);
    expect(keysOf(readRecords(out))).toEqual([first!.key]);
  });

  it('refuses bad settings before running anything, saying what is wrong', async () => {
    const base = { ors: rig.ors, model: offlineModel(), env: 'arith', out: rig.path('refused.jsonl') };
    await expect(generateRollouts({ ...base, env: 'nowhere' })).rejects.toThrow(NotFoundError);
    await expect(generateRollouts({ ...base, split: 'dev' })).rejects.toThrow(/has no split "dev"/);
    await expect(generateRollouts({ ...base, tasks: '990:1001' })).rejects.toThrow(
      /out of range: the split has 1000 tasks/,
    );
    await expect(generateRollouts({ ...base, samples: 0, concurrency: 1.5 })).rejects.toThrow(
      /samples: .*; concurrency: /,
    );
    await expect(generateRollouts({ ...base, sampling: { temperature: 9 } })).rejects.toThrow(BadRequestError);
    expect(rig.server.activeSessionIds()).toEqual([]);
  });

  it('refuses to add records made with other episode settings to a file, and a file another batch is writing', async () => {
    const out = rig.path('settings.jsonl');
    await generateRollouts({ ors: rig.ors, model: offlineModel(), env: 'arith', tasks: '0:2', out });
    const mismatch = generateRollouts({
      ors: rig.ors,
      model: offlineModel(),
      env: 'arith',
      tasks: '0:4',
      out,
      maxTurns: 5,
      seed: 3,
    });
    await expect(mismatch).rejects.toThrow(/other settings \(seed was 0, now 3; max_turns was 20, now 5\)/);
    expect(readRecords(out)).toHaveLength(2);

    const lock = RolloutLock.acquire(out);
    try {
      await expect(
        generateRollouts({ ors: rig.ors, model: offlineModel(), env: 'arith', tasks: '0:4', out }),
      ).rejects.toThrow(ConflictError);
    } finally {
      lock.release();
    }
    expect(readRecords(out)).toHaveLength(2);
  });
});

function planSeed(masterSeed: number, record: TrajectoryRecord): number {
  const [rollout] = planRollouts({
    env: record.task.env,
    split: record.task.split,
    indices: [record.task.index],
    samples: record.sample_index + 1,
    masterSeed,
  }).slice(-1);
  return rollout!.seed;
}
