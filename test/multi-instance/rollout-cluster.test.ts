import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { OrsClient } from '../../src/ors/client/ors-client.js';
import { generateRollouts } from '../../src/rollouts/generate-rollouts.js';
import { planRollouts } from '../../src/rollouts/rollout-plan.js';
import { RolloutSnapshotSchema } from '../../src/rollouts/rollout-snapshot.js';
import type { TrajectoryRecord } from '../../src/rollouts/trajectory-schema.js';
import { offlineModel, readRecords as readRolloutFile } from '../rollouts/rollout-rig.js';
import { eventually } from '../support/eventually.js';
import { type BridgeFetch, readRecords, readRecordsThenDisconnect, startRollout } from '../support/rollout-client.js';
import { type Cluster, type Instance, startCluster } from './serve-cluster.js';

const keyOf = (record: TrajectoryRecord) => `${record.group_id}#${record.sample_index}`;
const on =
  (instance: Instance): BridgeFetch =>
  (path, init) =>
    fetch(`${instance.url}${path}`, init);

/**
 * A rollout batch on three instances sharing one Redis (docs/rollouts.md, "The service"): its pairs
 * spread over the instances through the runs' queue, and losing one mid-batch loses no pair and
 * records none twice.
 */
describe('a rollout batch on a cluster', () => {
  let cluster: Cluster | undefined;
  afterEach(async () => {
    await cluster?.stop();
    cluster = undefined;
  });

  it('of 60 pairs completes with each pair recorded once after an instance is SIGKILLed mid-batch, with the rewards of a local batch', async () => {
    cluster = await startCluster(3, { RUNBRIDGE_MAX_CONCURRENT_RUNS: '3', RUNBRIDGE_LEASE_SECONDS: '2' });
    const [a, b, c] = cluster.instances as [Instance, Instance, Instance];
    // Every pair in flight waits at its first tool call until the test lets it go.
    cluster.ors.holding.add('arith');
    const settings = { env: 'arith', split: 'train', tasks: '0:30', samples: 2, model: 'offline', seed: 5 };
    const id = await startRollout(on(a), settings);
    await eventually(() => cluster!.ors.waiting() === 9, 'nine held pairs, three per instance');
    const running = RolloutSnapshotSchema.parse(await (await fetch(`${b.url}/v1/rollouts/${id}`)).json());
    expect(running).toMatchObject({ status: 'running', total: 60, running: 9, queued: 51, completed: 0 });

    a.child.kill('SIGKILL');
    await a.exited;
    cluster.ors.holding.delete('arith');
    cluster.ors.release();

    // A reader on B goes away after ten records; it resumes on C from its cursor.
    const first = await readRecordsThenDisconnect(on(b), id, 10);
    const rest = await readRecords(on(c), id, `?after=${first.length - 1}`);
    const records = [...first, ...rest];
    const plan = planRollouts({
      env: 'arith',
      split: 'train',
      indices: [...Array(30).keys()],
      samples: 2,
      masterSeed: 5,
    });
    expect(records).toHaveLength(60);
    expect(records.map(keyOf).sort()).toEqual(plan.map((pair) => pair.key).sort());
    // The three pairs A was playing ended as lost, and were played again.
    expect(records.filter((record) => record.attempt === 2)).toHaveLength(3);
    expect(records.every((record) => record.status === 'completed')).toBe(true);
    const done = RolloutSnapshotSchema.parse(await (await fetch(`${c.url}/v1/rollouts/${id}`)).json());
    expect(done).toMatchObject({ status: 'completed', total: 60, completed: 60, failed: 0, running: 0, queued: 0 });

    const dir = mkdtempSync(join(tmpdir(), 'rollouts-'));
    try {
      const out = join(dir, 'local.jsonl');
      await generateRollouts({
        ors: new OrsClient({ baseUrl: cluster.ors.url }),
        model: offlineModel(),
        env: 'arith',
        split: 'train',
        tasks: '0:30',
        samples: 2,
        seed: 5,
        out,
      });
      const local = new Map(readRolloutFile(out).map((record) => [keyOf(record), record]));
      for (const record of records) {
        expect(record.sampling.seed, keyOf(record)).toBe(local.get(keyOf(record))!.sampling.seed);
        expect(record.reward, keyOf(record)).toBe(local.get(keyOf(record))!.reward);
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
    // Three instances, a lease to run out and 60 episodes twice (here and local): 14-21 s alone, over 30 s
    // beside a dozen other files under load; as long as the other multi-instance tests get.
  }, 90_000);
});
