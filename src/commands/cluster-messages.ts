import type { MetricsSnapshot, ScrapePage } from '../telemetry/metrics-snapshot.js';

/**
 * What a worker of `serve --workers N` tells the primary over the cluster's IPC channel: that it
 * listens (with its banner, printed once for all), that a scraper asks it for the metrics page of
 * every worker (`scrape`), and its own metrics when the primary gathers them (`metrics`).
 */
export type FromServeWorker =
  | { kind: 'listening'; banner: string }
  | { kind: 'scrape'; id: number }
  | { kind: 'metrics'; id: number; metrics: MetricsSnapshot | undefined };

/**
 * What the primary tells a worker: to drain, to hand over its own metrics (`collect`), and the page
 * it asked for, or why there is none.
 */
export type ToServeWorker =
  | { kind: 'drain' }
  | { kind: 'collect'; id: number }
  | { kind: 'page'; id: number; page: ScrapePage }
  | { kind: 'page'; id: number; error: string };
