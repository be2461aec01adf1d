import { context, ROOT_CONTEXT, type Span, SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import {
  ATTR_HTTP_REQUEST_METHOD,
  ATTR_HTTP_RESPONSE_STATUS_CODE,
  ATTR_HTTP_ROUTE,
  ATTR_URL_PATH,
} from '@opentelemetry/semantic-conventions';
import { noMetrics } from './bridge-metrics.js';
import { BridgeRunObserver } from './bridge-run-observer.js';
import { logRunEnd } from './log-run-end.js';
import type { Logger } from './logger.js';
import type { SharedMetrics } from './metrics-snapshot.js';
import { OtelTracing, type TracingSettings } from './otel-tracing.js';
import { PrometheusMetrics, type PrometheusMetricsOptions } from './prometheus-metrics.js';
import { runLogFields } from './run-log-fields.js';
import type { Telemetry, TracedRequest } from './telemetry.js';

/** What {@link createTelemetry} turns on. */
export interface TelemetryOptions {
  logger: Logger;
  /** Count, and serve `GET /metrics` (`RUNBRIDGE_METRICS`). */
  metrics: boolean;
  /** Export spans; undefined leaves tracing off. */
  tracing: TracingSettings | undefined;
  /** This instance's id in a shared store (the spans' `service.instance.id`). */
  instance?: string;
  /** The models whose calls keep their name as a label (see {@link PrometheusMetricsOptions}); every other reads `other`. */
  labelledModels?: Iterable<string>;
  /** In a worker of `serve --workers N`: where `/metrics` gets the page of every worker's metrics. */
  shared?: SharedMetrics;
}

/** The bridge's telemetry as `options` say: each signal that is off costs a call that does nothing. */
export function createTelemetry(options: TelemetryOptions): Telemetry {
  const { logger } = options;
  const prometheus = options.metrics
    ? new PrometheusMetrics(options.labelledModels === undefined ? {} : { labelledModels: options.labelledModels })
    : undefined;
  const metrics = prometheus ?? noMetrics;
  const { shared } = options;
  if (prometheus && shared) shared.provide(() => prometheus.snapshot());
  const otel = options.tracing && new OtelTracing(options.tracing, logger, options.instance);
  return {
    logger,
    metrics,
    scrape: prometheus && (shared ? () => shared.page() : () => prometheus.scrape()),
    traceRequest: otel ? (request, work) => serverSpan(otel, request, work) : (_request, work) => work(),
    captureTrace: () => otel?.capture(),
    observeRun: (run) => new BridgeRunObserver(run, { logger, metrics, otel }),
    observeEnd(run, outcome) {
      metrics.runFinished(run.env, outcome.status);
      logRunEnd(logger.child(runLogFields(run)), run, outcome, outcome.durationMs);
    },
    shutdown: async () => otel?.shutdown(),
  };
}

/** Runs `work` as the HTTP server span of `request` (after the HTTP semantic conventions). */
async function serverSpan<T>(otel: OtelTracing, request: TracedRequest, work: () => Promise<T>): Promise<T> {
  const callers = otel.extract(request.headers);
  const parent = request.joinCallerTrace ? callers : ROOT_CONTEXT;
  const linked = request.joinCallerTrace ? undefined : trace.getSpanContext(callers);
  const span: Span = otel.tracer.startSpan(
    request.method,
    {
      kind: SpanKind.SERVER,
      attributes: { [ATTR_HTTP_REQUEST_METHOD]: request.method, [ATTR_URL_PATH]: request.path },
      ...(linked === undefined ? {} : { links: [{ context: linked }] }),
    },
    parent,
  );
  try {
    return await context.with(trace.setSpan(parent, span), work);
  } finally {
    const { route, status } = request.outcome();
    if (route !== undefined) {
      span.updateName(`${request.method} ${route}`);
      span.setAttribute(ATTR_HTTP_ROUTE, route);
    }
    span.setAttribute(ATTR_HTTP_RESPONSE_STATUS_CODE, status);
    if (status >= 500) span.setStatus({ code: SpanStatusCode.ERROR });
    span.end();
  }
}
