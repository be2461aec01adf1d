import type { Worker } from 'node:cluster';
import { ClusterMetrics, type WorkerSnapshot } from '../telemetry/cluster-metrics.js';
import type { Logger } from '../telemetry/logger.js';
import type { MetricsSnapshot, ScrapePage } from '../telemetry/metrics-snapshot.js';
import type { ToServeWorker } from './cluster-messages.js';

/**
 * How long the primary waits for one worker's metrics. One that has not answered by then (its event
 * loop held up) is left off that page, and the log says so: the scrape still answers, below
 * Prometheus's own 10 s timeout, and that worker's series resume on the next.
 */
const COLLECT_TIMEOUT_MS = 5000;

/**
 * In the primary of `serve --workers N`: asks every listening worker for its metrics and makes the one
 * page every worker answers `/metrics` with (docs/operations.md#metrics), with the primary's own.
 */
export class MetricsGatherer {
  /** The primary's own counts, and the page-maker. */
  readonly metrics = new ClusterMetrics();
  readonly #log: Logger;
  readonly #pending = new Map<number, { worker: Worker; settle: (metrics: MetricsSnapshot | undefined) => void }>();
  #nextId = 0;

  constructor(log: Logger) {
    this.#log = log;
  }

  /** The page of `workers` (each with its place, 1 to N). */
  async page(workers: ReadonlyMap<Worker, number>): Promise<ScrapePage> {
    const gathered = await Promise.all(
      [...workers].map(async ([worker, place]) => ({ place, metrics: await this.#collect(worker, place) })),
    );
    const snapshots: WorkerSnapshot[] = gathered
      .sort((one, other) => one.place - other.place)
      .flatMap(({ place, metrics }) => (metrics === undefined ? [] : [{ worker: String(place), metrics }]));
    return this.metrics.page(snapshots);
  }

  /** A worker's answer to `collect` number `id`. */
  received(id: number, metrics: MetricsSnapshot | undefined): void {
    this.#pending.get(id)?.settle(metrics);
  }

  /** `worker` exited: what it was asked for will not come. */
  exited(worker: Worker): void {
    for (const pending of [...this.#pending.values()]) if (pending.worker === worker) pending.settle(undefined);
  }

  #collect(worker: Worker, place: number): Promise<MetricsSnapshot | undefined> {
    return new Promise((resolve) => {
      const id = this.#nextId++;
      const settle = (metrics: MetricsSnapshot | undefined) => {
        clearTimeout(timer);
        this.#pending.delete(id);
        resolve(metrics);
      };
      const timer = setTimeout(() => {
        this.#log.warn(
          { worker: place, worker_pid: worker.process.pid, timeout_ms: COLLECT_TIMEOUT_MS },
          'a worker did not hand over its metrics in time; this scrape leaves them out',
        );
        settle(undefined);
      }, COLLECT_TIMEOUT_MS);
      this.#pending.set(id, { worker, settle });
      if (!worker.isConnected()) {
        settle(undefined);
        return;
      }
      worker.send({ kind: 'collect', id } satisfies ToServeWorker, undefined, (error) => {
        if (error) settle(undefined);
      });
    });
  }
}
