import { describe, expect, it } from 'vitest';
import { ClusterMetrics } from '../../src/telemetry/cluster-metrics.js';
import { PrometheusMetrics } from '../../src/telemetry/prometheus-metrics.js';
import { readScrape } from '../support/read-scrape.js';

/** The one page the primary of `serve --workers N` makes of its workers' metrics (docs/operations.md#metrics). */
describe("the primary's metrics page", () => {
  it("keeps every worker's series apart under its worker label, histograms and process metrics included, beside the primary's own", async () => {
    const [one, two] = [new PrometheusMetrics(), new PrometheusMetrics()];
    one.runStarted('arith');
    one.turn(0.2);
    for (let run = 0; run < 3; run++) two.runStarted('arith');
    two.turn(3);
    const cluster = new ClusterMetrics();
    cluster.workerRestarted();
    cluster.workersListening(2);

    const page = await cluster.page([
      { worker: '1', metrics: await one.snapshot() },
      { worker: '2', metrics: await two.snapshot() },
    ]);
    expect(page.contentType).toMatch(/^text\/plain; version=0\.0\.4/);
    const scrape = readScrape(page.body);
    expect(scrape.value('runbridge_runs_started_total', { env: 'arith', worker: '1' })).toBe(1);
    expect(scrape.value('runbridge_runs_started_total', { env: 'arith', worker: '2' })).toBe(3);
    expect(scrape.value('runbridge_turn_duration_seconds_bucket', { le: '0.25', worker: '1' })).toBe(1);
    expect(scrape.value('runbridge_turn_duration_seconds_bucket', { le: '0.25', worker: '2' })).toBe(0);
    expect(scrape.value('runbridge_turn_duration_seconds_count', { worker: '2' })).toBe(1);
    // prom-client would leave a process's start time out of a summed page: each worker's is its own.
    for (const worker of ['1', '2']) expect(scrape.value('process_start_time_seconds', { worker })).toBeGreaterThan(0);
    expect(scrape.value('runbridge_worker_restarts_total')).toBe(1);
    expect(scrape.value('runbridge_workers')).toBe(2);
  });
});
