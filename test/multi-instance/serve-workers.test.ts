import http from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { HealthSchema } from '../../src/protocol/api-answers.js';
import { assertEventOrder } from '../../src/protocol/verify-event-order.js';
import { eventually } from '../support/eventually.js';
import { readScrape, type Scrape } from '../support/read-scrape.js';
import {
  type Cluster,
  type Instance,
  OVER_HTTP,
  postRun,
  readEvents,
  snapshotOf,
  startCluster,
} from './serve-cluster.js';

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

/** The primary's own JSON log line `msg` whose fields include `fields`, if it wrote one (its workers' lines carry their own pids). */
function logged(
  serve: Instance,
  msg: string,
  fields: Record<string, unknown> = {},
): Record<string, unknown> | undefined {
  return serve
    .logLines()
    .find(
      (line) =>
        line.pid === serve.child.pid &&
        line.msg === msg &&
        Object.entries(fields).every(([name, value]) => line[name] === value),
    );
}

/** GET `path` on a connection of its own: node:cluster deals connections to the workers, not requests. */
function getOnNewConnection(url: string, path: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    http
      .get(`${url}${path}`, { agent: false }, (response) => {
        let body = '';
        response.setEncoding('utf8');
        response.on('data', (chunk: string) => (body += chunk));
        response.on('end', () => resolve({ status: response.statusCode ?? 0, body }));
        response.on('error', reject);
      })
      .on('error', reject);
  });
}

/**
 * `runbridge serve --workers 2` on Redis (docs/deployment.md): one command, two processes behind one
 * port sharing the runs. Each worker runs one run at a time here, so two runs running at once prove
 * both serve.
 */
// Each test starts three processes from the sources (a primary and two workers), and most start more.
describe('runbridge serve --workers 2', { timeout: 60_000 }, () => {
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
      () => logged(serve, 'worker started', { replaces: pids[0] }),
      'the primary replaced the dead worker',
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

  it('answers /metrics for all its workers at once: every series labelled by its worker, counters that only grow from one scrape to the next', async () => {
    cluster = await startCluster(0);
    const serve = await cluster.add('P', { RUNBRIDGE_WORKERS: '2', RUNBRIDGE_MAX_CONCURRENT_RUNS: '1' });
    const scrapes: Scrape[] = [];
    const scrape = async () => {
      // Each on a connection of its own, so that the scrapes are dealt to both workers in turn.
      const answer = await getOnNewConnection(serve.url, '/metrics');
      expect(answer.status, answer.body).toBe(200);
      scrapes.push(readScrape(answer.body));
    };

    // Three rounds of two runs held at once, one in each worker (each runs one at a time), scraped while they run and after.
    for (let round = 0; round < 3; round++) {
      cluster.ors.holding.add('arith');
      const runs = [await postRun(serve, { env: 'arith' }), await postRun(serve, { env: 'arith' })];
      await eventually(() => cluster!.ors.waiting() === 2, 'both runs held in their tool call', OVER_HTTP);
      await scrape();
      await scrape();
      cluster.ors.holding.clear();
      cluster.ors.release();
      for (const run of runs) expect((await readEvents(serve, run.runId)).at(-1)?.event).toBe('run.completed');
      await scrape();
      await scrape();
    }

    const started = (scrape: Scrape, worker: string) =>
      scrape.value('runbridge_runs_started_total', { env: 'arith', worker }) ?? 0;
    const total = (scrape: Scrape) => started(scrape, '1') + started(scrape, '2');
    for (const [index, scrape] of scrapes.entries()) {
      // Both workers on every page, whichever of them answered it.
      expect(started(scrape, '1'), `scrape ${index}`).toBeGreaterThan(0);
      expect(started(scrape, '2'), `scrape ${index}`).toBeGreaterThan(0);
      expect(scrape.value('process_cpu_user_seconds_total', { worker: '1' })).toBeGreaterThan(0);
      expect(scrape.value('process_cpu_user_seconds_total', { worker: '2' })).toBeGreaterThan(0);
      expect(scrape.value('runbridge_worker_restarts_total')).toBe(0);
      if (index === 0) continue;
      const before = scrapes[index - 1]!;
      for (const worker of ['1', '2']) {
        expect(started(scrape, worker), `worker ${worker}, scrape ${index}`).toBeGreaterThanOrEqual(
          started(before, worker),
        );
      }
      expect(total(scrape), `scrape ${index}`).toBeGreaterThanOrEqual(total(before));
    }
    // One run a round in each worker: the page counts each worker's own.
    expect(started(scrapes.at(-1)!, '1')).toBe(3);
    expect(started(scrapes.at(-1)!, '2')).toBe(3);
    // No series without its worker, but the primary's own.
    const unlabelled = scrapes
      .at(-1)!
      .families.filter((family) => family.metrics.some((metric) => metric.labels?.worker === undefined))
      .map((family) => family.name);
    expect(unlabelled.sort()).toEqual(['runbridge_worker_restarts_total', 'runbridge_workers']);
  });

  it('answers /health naming the instance and the pid that answered', async () => {
    cluster = await startCluster(0);
    const serve = await cluster.add('P', { RUNBRIDGE_WORKERS: '2' });
    const pids = workerPids(serve.output());
    const answers = new Map<number, string>();
    await eventually(async () => {
      const answer = await getOnNewConnection(serve.url, '/health');
      const health = HealthSchema.parse(JSON.parse(answer.body));
      answers.set(health.pid, health.instance ?? '');
      return answers.size === 2;
    }, 'both workers to answer /health');
    expect([...answers.keys()].sort()).toEqual([...pids].sort());
    for (const instance of answers.values()) expect(instance).toMatch(/^i_/);
    expect(new Set(answers.values()).size).toBe(2);
  });

  it('logs its own events as JSON — each worker started, one exited with its pid and signal, its replacement — and waits longer before each quick restart', async () => {
    cluster = await startCluster(0);
    const serve = await cluster.add('P', { RUNBRIDGE_WORKERS: '2' });
    const [first, second] = workerPids(serve.output());
    for (const pid of [first, second]) {
      await eventually(
        () => logged(serve, 'worker listening', { worker_pid: pid }),
        `worker ${pid} logged as listening`,
      );
      expect(logged(serve, 'worker started', { worker_pid: pid })).toMatchObject({
        level: 'info',
        worker: expect.any(Number),
      });
    }

    process.kill(first!, 'SIGKILL');
    const exited = await eventually(() => logged(serve, 'worker exited', { worker_pid: first }), 'the exit logged');
    expect(exited).toMatchObject({ level: 'warn', signal: 'SIGKILL', restart_in_ms: 1000 });
    const replacement = await eventually(() => logged(serve, 'worker started', { replaces: first }), 'a replacement');
    expect(replacement.worker).toBe(exited.worker);

    // The replacement dies at once too: the primary waits twice as long before the next.
    process.kill(replacement.worker_pid as number, 'SIGKILL');
    const again = await eventually(
      () => logged(serve, 'worker exited', { worker_pid: replacement.worker_pid }),
      'the second exit',
    );
    expect(again).toMatchObject({ level: 'warn', signal: 'SIGKILL', restart_in_ms: 2000, worker: exited.worker });
    const third = await eventually(
      () => logged(serve, 'worker started', { replaces: replacement.worker_pid }),
      'a second replacement',
    );
    await eventually(
      () => logged(serve, 'worker listening', { worker_pid: third.worker_pid }),
      'the second replacement listening',
    );
    const metrics = readScrape((await getOnNewConnection(serve.url, '/metrics')).body);
    expect(metrics.value('runbridge_worker_restarts_total')).toBe(2);

    // None of it as plain text on stdout.
    const plain = serve
      .output()
      .split('\n')
      .filter((line) => !line.startsWith('{'));
    expect(plain.filter((line) => /exited|starting another/.test(line))).toEqual([]);

    serve.child.kill('SIGTERM');
    expect(await serve.exited, serve.output()).toBe(0);
    expect(logged(serve, 'worker exited', { worker_pid: second })).toMatchObject({ level: 'info', exit_code: 0 });
    expect(logged(serve, 'worker exited', { worker_pid: second })).not.toHaveProperty('restart_in_ms');
  });
});
