import type { IncomingHttpHeaders } from 'node:http';
import type { BridgeMetrics } from './bridge-metrics.js';
import type { Logger } from './logger.js';
import type { ScrapePage } from './metrics-snapshot.js';
import type { ObservedRun, RunObserver, RunOutcome } from './run-observer.js';
import type { RunTraceContext } from './trace-context.js';

/** An HTTP request as its server span sees it. */
export interface TracedRequest {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  /** Continue the trace the caller's `traceparent` names; false starts a trace of its own, linked to the caller's span. */
  joinCallerTrace: boolean;
  /** The route pattern that served it and the status it answered, read once it is done. */
  outcome: () => { route: string | undefined; status: number };
}

/**
 * The bridge's logs, metrics and traces (docs/operations.md), made once by `main.ts` from the
 * configuration and handed to the runs, the HTTP app, the store and the webhooks. The rest of the
 * bridge sees only this: neither pino's, prom-client's nor OpenTelemetry's types.
 */
export interface Telemetry {
  readonly logger: Logger;
  readonly metrics: BridgeMetrics;
  /** The text `GET /metrics` answers and its content type; undefined with `RUNBRIDGE_METRICS=0`. */
  readonly scrape: (() => Promise<ScrapePage>) | undefined;
  /**
   * Runs `work`, an API request, as its server span (just `work` without tracing): a child of the caller's
   * `traceparent` when the request joins its caller's trace, else the root of a new trace linked to it.
   */
  traceRequest<T>(request: TracedRequest, work: () => Promise<T>): Promise<T>;
  /** The active span as W3C Trace Context headers, for a new run's record; undefined without tracing. */
  captureTrace(): RunTraceContext | undefined;
  /** What hears of one run executing here, from its start to {@link RunObserver.end}. */
  observeRun(run: ObservedRun): RunObserver;
  /**
   * A run this instance ended without executing it (no live instance did: its own was lost): its one
   * `run ended` line, and its count, here (docs/operations.md).
   */
  observeEnd(run: ObservedRun, outcome: RunOutcome): void;
  /** Sends the spans still buffered; the bridge's last step. */
  shutdown(): Promise<void>;
}
