import { existsSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { Model } from '../../src/models/model.js';
import { generateRollouts } from '../../src/rollouts/generate-rollouts.js';
import { planRollouts } from '../../src/rollouts/rollout-plan.js';
import { eventually } from '../support/eventually.js';
import type { OfflineWorkerData } from './offline-rollout-worker.js';
import { keysOf, offlineModel, played, readRecords, useRolloutRig } from './rollout-rig.js';

const SETUP = new URL('./offline-rollout-worker.ts', import.meta.url);

describe('generateRollouts with worker threads', () => {
  const rig = useRolloutRig();

  const batch = { env: 'arith', tasks: '0:12', samples: 2, concurrency: 8 } as const;

  it('writes the same pairs, seeds, rewards and conversations with 2 workers as in this thread', async () => {
    const here = await generateRollouts({ ors: rig.ors, model: offlineModel(), ...batch, out: rig.path('one.jsonl') });
    const threads = await generateRollouts({
      ors: rig.ors,
      model: offlineModel(),
      ...batch,
      out: rig.path('two.jsonl'),
      workers: { count: 2, setup: SETUP },
    });
    expect(threads.manifest.config.workers).toBe(2);
    expect(threads.manifest.progress).toMatchObject({ planned: 24, completed: 24, failed: 0, retried: 0 });
    const { episode_seconds: _hereTimes, ...hereResults } = here.manifest.results;
    const { episode_seconds: _threadTimes, ...threadResults } = threads.manifest.results;
    expect(threadResults).toEqual(hereResults);
    const records = readRecords(rig.path('two.jsonl'));
    expect(records).toHaveLength(24);
    expect(played(records)).toEqual(played(readRecords(rig.path('one.jsonl'))));
    // The episodes ran in the workers' own ORS servers, not in the parent's.
    expect(rig.server.activeSessionIds()).toEqual([]);
  });

  it('resumes a file begun in this thread with workers, writing only the missing pairs', async () => {
    const out = rig.path('resume.jsonl');
    await generateRollouts({ ors: rig.ors, model: offlineModel(), ...batch, tasks: '0:5', out });
    const resumed = await generateRollouts({
      ors: rig.ors,
      model: offlineModel(),
      ...batch,
      out,
      workers: { count: 2, setup: SETUP },
    });
    expect(resumed.manifest.progress).toMatchObject({ planned: 24, skipped: 10, written: 14, completed: 24 });
    const records = readRecords(out);
    expect(new Set(keysOf(records)).size).toBe(24);
    expect(played(records)).toEqual(played(readRecords(rig.path('one.jsonl'))));
  });

  /** The lines the worker threads wrote to `journal` (see `OfflineWorkerData`), none when no thread started. */
  const journalOf = (path: string) => (existsSync(path) ? readFileSync(path, 'utf8').trim().split('\n') : []);

  it('as needed, plays a batch too small for a second thread in this one, starting none', async () => {
    const journal = rig.path('small.journal');
    const result = await generateRollouts({
      ors: rig.ors,
      model: offlineModel(),
      ...batch,
      out: rig.path('small.jsonl'),
      workers: { count: 2, setup: SETUP, data: { journal } satisfies OfflineWorkerData, asNeeded: true },
    });
    expect(result.manifest.progress).toMatchObject({ planned: 24, completed: 24 });
    expect(journalOf(journal)).toEqual([]);
    expect(played(readRecords(rig.path('small.jsonl')))).toEqual(played(readRecords(rig.path('one.jsonl'))));
  });

  it('as needed, plays a batch that can use a second thread here from the start and in a worker thread once it is set up', async () => {
    const journal = rig.path('grown.journal');
    const seeds = new Set<number | undefined>();
    const offline = offlineModel();
    // This thread's episodes wait for the worker thread, so that it gets some of its own.
    const here: Model = {
      id: offline.id,
      async *stream(request) {
        seeds.add(request.sampling.seed);
        await eventually(() => journalOf(journal).includes('set up'), 'the worker thread set up');
        yield* offline.stream(request);
      },
    };
    const result = await generateRollouts({
      ors: rig.ors,
      model: here,
      ...batch,
      out: rig.path('grown.jsonl'),
      workers: {
        count: 2,
        setup: SETUP,
        data: { journal } satisfies OfflineWorkerData,
        asNeeded: true,
        episodesPerThread: 12,
      },
    });
    expect(result.manifest.progress).toMatchObject({ planned: 24, completed: 24, retried: 0 });
    const lines = journalOf(journal);
    expect(lines).toHaveLength(2);
    const inWorker = Number(lines[1]!.replace('played ', ''));
    expect(seeds.size).toBeGreaterThan(0);
    expect(inWorker).toBeGreaterThan(0);
    expect(seeds.size + inWorker).toBe(24);
    expect(played(readRecords(rig.path('grown.jsonl')))).toEqual(played(readRecords(rig.path('one.jsonl'))));
  });

  /** Plays the batch in 2 threads, the one that gets the `nth` pair's first model call dying then. */
  async function playWithACrash(name: string, nth: number, retries: number) {
    const out = rig.path(`${name}.jsonl`);
    const plan = planRollouts({
      env: 'arith',
      split: 'train',
      indices: [...Array(12).keys()],
      samples: 2,
      masterSeed: 0,
    });
    const doomed = plan[nth]!;
    const data: OfflineWorkerData = { crashSeed: doomed.seed, crashMarker: rig.path(`${name}.marker`) };
    const result = await generateRollouts({
      ors: rig.ors,
      model: offlineModel(),
      ...batch,
      out,
      retries,
      workers: { count: 2, setup: SETUP, data },
    });
    expect(existsSync(data.crashMarker!)).toBe(true);
    return { out, doomed, result };
  }

  it('retries only the episodes in flight on a worker that died, under the batch retries', async () => {
    const { out, doomed, result } = await playWithACrash('crash', 5, 1);
    const records = readRecords(out);
    expect(records).toHaveLength(24);
    expect(records.every((record) => record.status === 'completed')).toBe(true);
    const again = records.filter((record) => record.attempt === 2);
    // The dead thread's episodes in flight, the doomed one among them, and no other.
    expect(keysOf(again)).toContain(doomed.key);
    expect(again.length).toBe(result.manifest.progress.retried);
    expect(again.length).toBeLessThanOrEqual(batch.concurrency);
    expect(played(records)).toEqual(played(readRecords(rig.path('one.jsonl'))));
  });

  it('writes a lost episode as failed with rollout_worker_exited once its retries are spent', async () => {
    const { out, doomed, result } = await playWithACrash('lost', 3, 0);
    const failed = readRecords(out).filter((record) => record.status === 'failed');
    expect(keysOf(failed)).toContain(doomed.key);
    expect(failed.every((record) => record.error?.code === 'rollout_worker_exited')).toBe(true);
    expect(result.manifest.progress.failed).toBe(failed.length);
    expect(result.manifest.progress.completed).toBe(24 - failed.length);
    expect(readFileSync(out, 'utf8').endsWith('\n')).toBe(true);
  });

  it('plays an episode that kills its worker again only once, then writes it as failed, whatever retries are left', async () => {
    const out = rig.path('doomed.jsonl');
    const plan = planRollouts({ env: 'arith', split: 'train', indices: [0, 1, 2, 3], samples: 1, masterSeed: 0 });
    const doomed = plan[2]!;
    const result = await generateRollouts({
      ors: rig.ors,
      model: offlineModel(),
      env: 'arith',
      tasks: '0:4',
      samples: 1,
      concurrency: 2,
      out,
      retries: 5,
      workers: { count: 2, setup: SETUP, data: { alwaysCrashSeed: doomed.seed } satisfies OfflineWorkerData },
    });
    const records = readRecords(out);
    expect(records).toHaveLength(4);
    const lost = records.find((record) => keysOf([record])[0] === doomed.key)!;
    expect(lost).toMatchObject({ status: 'failed', attempt: 2, error: { code: 'rollout_worker_exited' } });
    // The doomed episode's two attempts, and those of others that shared its thread when it died.
    expect(result.manifest.progress.lost_attempts).toBeGreaterThanOrEqual(2);
    for (const record of records) expect(record.attempt).toBeLessThanOrEqual(2);
  });

  it('stops before playing anything when a worker cannot set itself up', async () => {
    const out = rig.path('no-setup.jsonl');
    await expect(
      generateRollouts({
        ors: rig.ors,
        model: offlineModel(),
        ...batch,
        out,
        workers: { count: 2, setup: new URL('./no-such-setup.ts', import.meta.url) },
      }),
    ).rejects.toMatchObject({ code: 'rollout_worker_failed' });
    expect(existsSync(out) ? readFileSync(out, 'utf8') : '').toBe('');
  });

  it('refuses workers whose model is not the batch model', async () => {
    const other = { id: 'offline:other', stream: offlineModel().stream };
    await expect(
      generateRollouts({
        ors: rig.ors,
        model: other,
        ...batch,
        out: rig.path('other-model.jsonl'),
        workers: { count: 2, setup: SETUP },
      }),
    ).rejects.toMatchObject({ code: 'rollout_worker_failed', message: expect.stringContaining('offline:other') });
  });
});
