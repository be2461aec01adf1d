import { readFileSync, writeFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { generateRollouts } from '../../src/rollouts/generate-rollouts.js';
import { manifestPathFor } from '../../src/rollouts/rollout-manifest.js';
import { planRollouts } from '../../src/rollouts/rollout-plan.js';
import { trackSourceTimers } from '../support/track-source-timers.js';
import { keysOf, misbehavingModel, offlineModel, readManifestFile, readRecords, useRolloutRig } from './rollout-rig.js';

describe('generateRollouts on a file that already has records', () => {
  const rig = useRolloutRig();

  it('skips finished pairs, cuts off a torn last line, and writes each missing pair exactly once', async () => {
    const out = rig.path('torn.jsonl');
    const options = { ors: rig.ors, model: offlineModel(), env: 'arith', tasks: '0:6', samples: 2, out };
    await generateRollouts(options);
    const lines = readFileSync(out, 'utf8')
      .split('\n')
      .filter((line) => line !== '');
    expect(lines).toHaveLength(12);
    // As a crash leaves it: the last three records missing and the next one half written.
    const kept = lines.slice(0, 9);
    const torn = lines[9]!.slice(0, Math.floor(lines[9]!.length / 2));
    writeFileSync(out, `${kept.join('\n')}\n${torn}`);

    const result = await generateRollouts(options);
    expect(result.manifest.progress).toMatchObject({
      planned: 12,
      skipped: 9,
      written: 3,
      completed: 12,
      remaining: 0,
      torn_bytes: Buffer.byteLength(torn),
    });
    const records = readRecords(out);
    expect(records).toHaveLength(12);
    expect(new Set(keysOf(records)).size).toBe(12);
    expect(readFileSync(out, 'utf8').startsWith(`${kept.join('\n')}\n`)).toBe(true);
    expect(rig.server.activeSessionIds()).toEqual([]);
  });

  it('writes the policy version into every record and the manifest, and refuses to resume the file with another', async () => {
    const out = rig.path('policy.jsonl');
    const options = { ors: rig.ors, model: offlineModel(), env: 'arith', tasks: '0:2', samples: 2, out };
    const result = await generateRollouts({ ...options, policyVersion: 'step-7' });
    expect(result.manifest.config.policy_version).toBe('step-7');
    expect(readRecords(out).map((record) => record.policy_version)).toEqual(['step-7', 'step-7', 'step-7', 'step-7']);
    await expect(generateRollouts({ ...options, policyVersion: 'step-8' })).rejects.toMatchObject({
      code: 'rollout_settings_mismatch',
      message: expect.stringContaining('policy_version was "step-7", now "step-8"'),
    });
    const other = rig.path('no-policy.jsonl');
    await generateRollouts({ ...options, out: other });
    expect(readRecords(other).some((record) => 'policy_version' in record)).toBe(false);
    expect(readManifestFile(manifestPathFor(other)).config).not.toHaveProperty('policy_version');
  });

  it('leaves failed pairs alone on a rerun, and runs exactly those again with retryFailed', async () => {
    const out = rig.path('retry.jsonl');
    const plan = planRollouts({ env: 'arith', split: 'train', indices: [0, 1, 2, 3, 4, 5], samples: 2, masterSeed: 0 });
    const doomed = new Set(
      plan.filter((rollout) => rollout.index % 2 === 1 && rollout.sample === 1).map((rollout) => rollout.seed),
    );
    const failing = misbehavingModel(offlineModel(), (request) =>
      doomed.has(request.sampling.seed!) ? 'fail' : 'play',
    );
    const options = { ors: rig.ors, env: 'arith', tasks: '0:6', samples: 2, retries: 0, out };
    await generateRollouts({ ...options, model: failing });
    const failedKeys = keysOf(readRecords(out).filter((record) => record.status === 'failed'));
    expect(failedKeys.sort()).toEqual(['arith/train/1#1', 'arith/train/3#1', 'arith/train/5#1']);

    const rerun = await generateRollouts({ ...options, model: offlineModel() });
    expect(rerun.manifest.progress).toMatchObject({ skipped: 12, written: 0, failed: 3, dropped_failed: 0 });
    expect(readRecords(out)).toHaveLength(12);

    const retried = await generateRollouts({ ...options, model: offlineModel(), retryFailed: true });
    expect(retried.manifest.progress).toMatchObject({
      skipped: 9,
      written: 3,
      completed: 12,
      failed: 0,
      dropped_failed: 3,
    });
    const records = readRecords(out);
    expect(records).toHaveLength(12);
    expect(new Set(keysOf(records)).size).toBe(12);
    expect(records.every((record) => record.status === 'completed')).toBe(true);
    expect(keysOf(records.slice(-3)).sort()).toEqual(failedKeys);
  });

  it('cancels the episodes in flight when interrupted: no half line, every session deleted, the manifest says how far it got', async () => {
    const out = rig.path('interrupted.jsonl');
    const plan = planRollouts({
      env: 'arith',
      split: 'train',
      indices: [...Array(10).keys()],
      samples: 2,
      masterSeed: 0,
    });
    // Second samples hang until cancelled; first samples finish. Tasks alternate, so both kinds are always under way.
    const hangs = new Set(plan.filter((rollout) => rollout.sample === 1).map((rollout) => rollout.seed));
    const hung = new Set<number>();
    let written = 0;
    const controller = new AbortController();
    const interruptOnceBothHappened = () => {
      if (hung.size >= 2 && written >= 2) controller.abort();
    };
    const model = misbehavingModel(offlineModel(), (request) => {
      const seed = request.sampling.seed!;
      if (!hangs.has(seed)) return 'play';
      hung.add(seed);
      queueMicrotask(interruptOnceBothHappened);
      return 'hang';
    });

    const timers = trackSourceTimers();
    let result: Awaited<ReturnType<typeof generateRollouts>>;
    try {
      result = await generateRollouts({
        ors: rig.ors,
        model,
        env: 'arith',
        tasks: '0:10',
        samples: 2,
        concurrency: 4,
        out,
        signal: controller.signal,
        onRecord: () => {
          written++;
          interruptOnceBothHappened();
        },
      });
      // The ORS server in this process keeps finished results for reconnects; everything else must be gone.
      expect(timers.pending().filter((site) => !site.includes('/src/ors/server/'))).toEqual([]);
    } finally {
      timers.restore();
    }

    expect(result.status).toBe('interrupted');
    const records = readRecords(out);
    expect(records.every((record) => record.sample_index === 0 && record.status === 'completed')).toBe(true);
    expect(rig.server.activeSessionIds()).toEqual([]);
    const manifest = readManifestFile(manifestPathFor(out));
    expect(manifest.status).toBe('interrupted');
    expect(manifest.progress.cancelled).toBeGreaterThanOrEqual(2);
    expect(manifest.progress).toMatchObject({
      planned: 20,
      completed: records.length,
      failed: 0,
      remaining: 20 - records.length,
      written: records.length,
    });

    const resumed = await generateRollouts({
      ors: rig.ors,
      model: offlineModel(),
      env: 'arith',
      tasks: '0:10',
      samples: 2,
      concurrency: 4,
      out,
    });
    expect(resumed.status).toBe('finished');
    const all = readRecords(out);
    expect(all).toHaveLength(20);
    expect(new Set(keysOf(all)).size).toBe(20);
  });

  it('cancels an episode that outlives its time limit and records it as a timeout, its session deleted', async () => {
    const out = rig.path('timeout.jsonl');
    const [, slow] = planRollouts({ env: 'arith', split: 'train', indices: [0, 1], samples: 1, masterSeed: 0 });
    const model = misbehavingModel(offlineModel(), (request) =>
      request.sampling.seed === slow!.seed ? 'hang' : 'play',
    );
    const result = await generateRollouts({
      ors: rig.ors,
      model,
      env: 'arith',
      tasks: '0:2',
      retries: 0,
      timeoutMs: 200,
      out,
    });

    const records = readRecords(out);
    expect(records.find((record) => record.task.index === 0)).toMatchObject({ status: 'completed', reward: 1 });
    expect(records.find((record) => record.task.index === 1)).toMatchObject({
      status: 'failed',
      stop_reason: 'timeout',
      error: { code: 'rollout_timeout' },
    });
    expect(result.manifest.results.stop_reasons).toEqual({ finished: 1, timeout: 1 });
    expect(rig.server.activeSessionIds()).toEqual([]);
  });
});
