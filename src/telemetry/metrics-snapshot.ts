/** The answer of `GET /metrics`: the Prometheus text and its content type. */
export interface ScrapePage {
  contentType: string;
  body: string;
}

/**
 * One process's metrics as data (prom-client's `getMetricsAsJSON`), plain enough to cross the IPC
 * channel of `serve --workers N`; only the telemetry folder reads inside it.
 */
export type MetricsSnapshot = ReadonlyArray<object>;

/**
 * How `GET /metrics` answers in a worker of `serve --workers N` (docs/operations.md#metrics): every
 * worker answers with one page of all the workers' metrics, which the primary gathers.
 */
export interface SharedMetrics {
  /** Hands over what reads this process's own metrics, for the primary to gather. */
  provide(own: () => Promise<MetricsSnapshot>): void;
  /** The page of every worker's metrics. */
  page(): Promise<ScrapePage>;
}
