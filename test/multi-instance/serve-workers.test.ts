import { afterEach, describe, expect, it } from 'vitest';
import { assertEventOrder } from '../../src/protocol/verify-event-order.js';
import { eventually } from '../support/eventually.js';
import { type Cluster, OVER_HTTP, postRun, readEvents, snapshotOf, startCluster } from './serve-cluster.js';

/** The pids of the workers a primary's banner names (`pids 1, 2`), or of the one it replaced them with. */
function workerPids(output: string): number[] {
  const match = /pids ([\d, ]+)\)/.exec(output);
  if (match === null) throw new Error(`no worker pids in:\n${output}`);
  return match[1]!.split(',').map((pid) => Number(pid.trim()));
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/**
 * `runbridge serve --workers 2` on Redis (docs/deployment.md): one command, two processes behind one
 * port sharing the runs. Each worker runs one run at a time here, so two runs running at once prove
 * both serve.
 */
describe('runbridge serve --workers 2', () => {
  let cluster: Cluster | undefined;
  afterEach(async () => {
    await cluster?.stop();
    cluster = undefined;
  });

  it('serves runs through one port from both workers, streams their events, replaces a killed worker and drains all on SIGTERM', async () => {
    cluster = await startCluster(0);
    const serve = await cluster.add('P', { RUNBRIDGE_WORKERS: '2', RUNBRIDGE_MAX_CONCURRENT_RUNS: '1' });
    const pids = workerPids(serve.output());
    expect(pids).toHaveLength(2);
    cluster.ors.holding.add('arith');

    // Both held mid-call at once: one in each worker, as each runs one run at a time.
    const first = await postRun(serve, { env: 'arith' });
    const second = await postRun(serve, { env: 'arith' });
    expect([first.status, second.status]).toEqual([202, 202]);
    await eventually(() => cluster!.ors.waiting() === 2, 'both runs held in their tool call', OVER_HTTP);
    cluster.ors.holding.clear();
    cluster.ors.release();
    for (const run of [first, second]) {
      const events = await readEvents(serve, run.runId);
      assertEventOrder(events);
      expect(events.at(-1)?.event).toBe('run.completed');
    }

    // A worker killed outright is replaced; the two serve again.
    process.kill(pids[0]!, 'SIGKILL');
    await eventually(
      () => new RegExp(`worker ${pids[0]} exited \\(SIGKILL\\); starting another`).test(serve.output()),
      'the primary noticed the dead worker',
    );
    cluster.ors.holding.add('arith');
    const runs = await Promise.all([postRun(serve, { env: 'arith' }), postRun(serve, { env: 'arith' })]);
    await eventually(() => cluster!.ors.waiting() === 2, 'two runs held again, one per worker', OVER_HTTP);

    // SIGTERM to the primary alone: every worker drains — the held runs finish — and all exit.
    await eventually(
      async () => {
        const snapshots = await Promise.all(runs.map((run) => snapshotOf(serve, run.runId)));
        return snapshots.every((snapshot) => snapshot.status === 'running');
      },
      'both runs running',
      OVER_HTTP,
    );
    serve.child.kill('SIGTERM');
    await eventually(() => /SIGTERM: draining 2 workers/.test(serve.output()), 'the primary drains');
    cluster.ors.holding.clear();
    cluster.ors.release();
    expect(await serve.exited, serve.output()).toBe(0);
    expect(serve.output()).toContain('runbridge stopped');
    expect(pids.filter(alive)).toEqual([]);
    expect(cluster.ors.openSessions()).toBe(0);
    // Their logs, read from an instance started later on the same Redis, end as they ran: completed.
    const later = await cluster.add('later');
    for (const run of runs) {
      const events = await readEvents(later, run.runId);
      assertEventOrder(events);
      expect(events.at(-1)?.event).toBe('run.completed');
    }
  });
});
