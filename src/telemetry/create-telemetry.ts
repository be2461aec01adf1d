import { context, type Span, SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
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
import { OtelTracing, type TracingSettings } from './otel-tracing.js';
import { PrometheusMetrics } from './prometheus-metrics.js';
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
}

/** The bridge's telemetry as `options` say: each signal that is off costs a call that does nothing. */
export function createTelemetry(options: TelemetryOptions): Telemetry {
  const { logger } = options;
  const prometheus = options.metrics ? new PrometheusMetrics() : undefined;
  const metrics = prometheus ?? noMetrics;
  const otel = options.tracing && new OtelTracing(options.tracing, logger, options.instance);
  return {
    logger,
    metrics,
    scrape: prometheus && (() => prometheus.scrape()),
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
  const parent = otel.extract(request.headers);
  const span: Span = otel.tracer.startSpan(
    request.method,
    {
      kind: SpanKind.SERVER,
      attributes: { [ATTR_HTTP_REQUEST_METHOD]: request.method, [ATTR_URL_PATH]: request.path },
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
