import {
  AggregatorRegistry,
  Counter,
  Gauge,
  type MetricObjectWithValues,
  type MetricValue,
  Registry,
} from 'prom-client';
import type { MetricsSnapshot, ScrapePage } from './metrics-snapshot.js';

type Metric = MetricObjectWithValues<MetricValue<string>>;

/** One worker's metrics, and the label value that names it. */
export interface WorkerSnapshot {
  /** The worker's place, `1` to N: a replacement takes the place of the worker it replaces. */
  worker: string;
  metrics: MetricsSnapshot;
}

/**
 * The metrics page of `serve --workers N` (docs/operations.md#metrics), made by the primary: every
 * worker's series with a `worker` label naming its place, so each grows for as long as its worker
 * lives and a replacement starts it again from zero (a reset, as when a lone process restarts), and the
 * primary's own counts of its workers.
 */
export class ClusterMetrics {
  readonly registry = new Registry();
  readonly #restarts = new Counter({
    name: 'runbridge_worker_restarts_total',
    help: 'Workers of serve --workers N started in place of one that exited (the primary counts them).',
    registers: [this.registry],
  });
  readonly #listening = new Gauge({
    name: 'runbridge_workers',
    help: 'Workers of serve --workers N listening now (the primary counts them).',
    registers: [this.registry],
  });

  workerRestarted(): void {
    this.#restarts.inc();
  }

  workersListening(count: number): void {
    this.#listening.set(count);
  }

  /** One page of `workers`' metrics, each series labelled with its worker, and the primary's own. */
  async page(workers: readonly WorkerSnapshot[]): Promise<ScrapePage> {
    const labelled = workers.map(({ worker, metrics }) =>
      (metrics as Metric[]).map((metric) => ({
        ...metric,
        // Every series is a worker's own once labelled, so summing (the default) merges nothing; other
        // aggregators would drop series (`omit`: each worker's process start time).
        aggregator: 'sum' as const,
        values: metric.values.map((value) => ({ ...value, labels: { ...value.labels, worker } })),
      })),
    );
    const registry = Registry.merge([AggregatorRegistry.aggregate(labelled), this.registry]);
    return { contentType: registry.contentType, body: await registry.metrics() };
  }
}
