import { describe, expect, it, vi } from 'vitest';

vi.mock('prom-client', async (importOriginal) => {
  const original = await importOriginal<typeof import('prom-client')>();
  return { ...original, collectDefaultMetrics: vi.fn(original.collectDefaultMetrics) };
});

describe("Node's process metrics", () => {
  it('are registered once per process however many bridges it makes, and every bridge serves them', async () => {
    // The unit lane's threads keep modules from file to file: start from a metrics module not loaded yet.
    vi.resetModules();
    const { collectDefaultMetrics } = await import('prom-client');
    const { PrometheusMetrics } = await import('../../src/telemetry/prometheus-metrics.js');
    // prom-client cannot stop them: each registration would keep its event-loop monitor and GC observer.
    const bridges = [new PrometheusMetrics(), new PrometheusMetrics(), new PrometheusMetrics()];
    for (const bridge of bridges) {
      const { body } = await bridge.scrape();
      expect(body).toContain('process_cpu_user_seconds_total');
      expect(body).toContain('nodejs_eventloop_lag_seconds');
      expect(body).toContain('runbridge_runs_queued');
    }
    expect(vi.mocked(collectDefaultMetrics)).toHaveBeenCalledTimes(1);
  });
});
